// One repository per table group and database: the helper every repository goes through, so its statements are
// prepared once per database however many modules ask for it.
import type { Db } from './index.js'

/** Wraps a repository factory so each database (a Db, or a Sql) gets exactly one instance. */
export function perDatabase<R, D extends object = Db>(create: (db: D) => R): (db: D) => R {
  const made = new WeakMap<D, R>()
  return (db) => {
    let repo = made.get(db)
    if (!repo) {
      repo = create(db)
      made.set(db, repo)
    }
    return repo
  }
}
