// The dependency analysers (the readiness report's input): Python ops scripts and the Node.js host. Self-contained:
// they import nothing of the app, and the app reaches them only through this entry.
export { analysePython, PYTHON_ALGORITHM } from './python.js'
export { analyseNode, NODE_ALGORITHM } from './node.js'
export type { DependencySummary, DependencyAdvisory, AnalysedModule } from './types.js'
export type { PythonProbe } from './python-env.js'
