// The process: read the configuration, build the app, listen, and shut down gracefully on SIGTERM/SIGINT.
import closeWithGrace from 'close-with-grace'
import { buildApp } from './app.js'
import { ConfigError, loadConfig } from './config.js'

async function main() {
  let config
  try {
    config = loadConfig()
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`ncm-hub: ${err.message}\n`)
      process.exit(78) // EX_CONFIG
    }
    throw err
  }
  const started = performance.now()
  const app = await buildApp({ config })
  closeWithGrace({ delay: config.shutdownGraceMs }, async ({ signal, err }) => {
    if (err) app.log.error({ err }, 'closing after an error')
    else app.log.info({ signal }, 'closing: draining in-flight requests')
    await app.close()
  })
  await app.listen({ host: config.host, port: config.port })
  app.log.info({ ms: Math.round(performance.now() - started) }, `NCM Hub ready; docs at /docs`)
}

main().catch((err) => {
  process.stderr.write(`ncm-hub failed to start: ${err instanceof Error ? err.stack : String(err)}\n`)
  process.exit(1)
})
