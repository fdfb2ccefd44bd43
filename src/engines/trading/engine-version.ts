// The version of the engine's results: raised whenever the same inputs may give other figures, so a replay that
// differs names the change instead of hiding it.
export const ENGINE_VERSION = '11.1.0'
