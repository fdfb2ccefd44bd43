// The file piscina loads in a mill thread, CommonJS on purpose. piscina require()s its worker file first, and Node 20's
// require() of an ES module graph aborts the whole process (FATAL v8::Module::IsGraphAsync) when the thread is ended
// while that graph is still being linked: a pool closed, or a task stopped, just as a thread starts. import() loads the
// graph as any ES module is loaded, which ending the thread interrupts cleanly. piscina awaits the default export.
module.exports = import('./worker.js').then((worker) => worker.default)
