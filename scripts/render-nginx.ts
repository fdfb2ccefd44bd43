// Writes the host forms of the nginx configs (nginx/*.conf) from their templates (nginx/templates/*.template), as the
// official nginx image renders the templates at start: envsubst of the variables it is given, nothing else (nginx's
// own $host, $remote_addr… stay). Usage: npm run nginx:render
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import { REPO_ROOT } from '../src/version.js'

/** Each template, the host file rendered from it and the values it is rendered with there. */
export const HOST_RENDERINGS = [
  { template: 'nginx/templates/ncm-hub.conf.template', output: 'nginx/ncm-hub.conf', vars: { NCM_HUB_UPSTREAM: '127.0.0.1:8000' } },
  { template: 'nginx/templates/ncm-hub-scale.conf.template', output: 'nginx/ncm-hub-scale.conf', vars: { NCM_HUB_UPSTREAM: '127.0.0.1:8001' } },
] as const

/** envsubst restricted to `vars`: `$NAME` and `${NAME}` of those names are replaced, every other `$` is left as it is. */
export function renderTemplate(text: string, vars: Readonly<Record<string, string>>): string {
  return text.replace(/\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))/g, (whole, braced?: string, bare?: string) => {
    const name = (braced ?? bare)!
    return Object.hasOwn(vars, name) ? vars[name]! : whole
  })
}

export const renderHostFile = ({ template, vars }: (typeof HOST_RENDERINGS)[number]): string =>
  renderTemplate(readFileSync(join(REPO_ROOT, template), 'utf8'), vars)

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  for (const rendering of HOST_RENDERINGS) {
    writeFileSync(join(REPO_ROOT, rendering.output), renderHostFile(rendering))
    console.log(`nginx: ${rendering.template} → ${rendering.output} (${Object.entries(rendering.vars).map(([k, v]) => `${k}=${v}`).join(' ')})`)
  }
}
