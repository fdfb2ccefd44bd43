// WebAssembly text → binary with wabt (a dev dependency, loaded only when called: the build, tests, dev runs).

export class WatCompileError extends Error {
  override name = 'WatCompileError'
}

export async function compileWat(source: string, filename = 'kernels.wat'): Promise<Uint8Array> {
  let init: typeof import('wabt')
  try {
    init = (await import('wabt')).default
  } catch (err) {
    throw new WatCompileError(`the wabt package is not installed (it is a dev dependency): ${(err as Error).message}`)
  }
  const wabt = await init()
  const module = wabt.parseWat(filename, source, { simd: true })
  try {
    module.resolveNames()
    module.validate()
    return Uint8Array.from(module.toBinary({ write_debug_names: false }).buffer)
  } finally {
    module.destroy()
  }
}
