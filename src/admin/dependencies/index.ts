// The dependency analyses of the readiness report: Python ops scripts and the Node.js host.
export { analysePython, PYTHON_ALGORITHM } from './python.js'
export { analyseNode, NODE_ALGORITHM } from './node.js'
export type { DependencySummary, DependencyAdvisory, AnalysedModule } from './types.js'
