// Asks the host's python3, once, which top-level modules are importable (importlib.util.find_spec), as JSON.
import { execFile } from 'node:child_process'
import { tmpdir } from 'node:os'

export interface PythonProbe {
  /** `Python 3.11.7`, or null when no interpreter answered. */
  version: string | null
  /** module → importable; empty when the interpreter could not be asked. */
  importable: Record<string, boolean>
  /** Why the answer is missing, when it is. */
  error: string | null
}

// find_spec on a top-level name locates the module without importing it (no side effects of the package run).
// No -I/-E flags: the scripts run with the user's site-packages and PYTHONPATH, so the probe sees the same; only the
// working directory is dropped from sys.path so a local file cannot pass for an installed module.
const PROBE = [
  'import importlib.util, json, sys',
  'sys.path = [p for p in sys.path if p not in ("", ".")]',
  'out = {}',
  'for name in sys.argv[1:]:',
  '    try:',
  '        out[name] = importlib.util.find_spec(name) is not None',
  '    except (ImportError, ValueError):',
  '        out[name] = False',
  'print(json.dumps({"version": sys.version.split()[0], "importable": out}))',
].join('\n')

export const PYTHON_PROBE_TIMEOUT_MS = 10_000

export function probePython(modules: readonly string[], command = 'python3', timeoutMs = PYTHON_PROBE_TIMEOUT_MS): Promise<PythonProbe> {
  return new Promise((resolve) => {
    execFile(
      command,
      ['-c', PROBE, ...modules],
      { cwd: tmpdir(), timeout: timeoutMs, maxBuffer: 1024 * 1024, windowsHide: true },
      (err, stdout) => {
        if (err) {
          const code = (err as NodeJS.ErrnoException).code
          const error = code === 'ENOENT'
            ? `${command} is not installed on this host`
            : err.killed
              ? `${command} did not answer within ${timeoutMs} ms`
              : `${command} failed: ${err.message.split('\n')[0]}`
          resolve({ version: null, importable: {}, error })
          return
        }
        try {
          const parsed = JSON.parse(stdout) as { version: string; importable: Record<string, boolean> }
          resolve({ version: `Python ${parsed.version}`, importable: parsed.importable, error: null })
        } catch {
          resolve({ version: null, importable: {}, error: `${command} printed something that is not the expected JSON` })
        }
      },
    )
  })
}
