// The real server as a child process: shared with the benches, so it lives in scripts/cluster/process.ts.
export * from '../scripts/cluster/process.js'
