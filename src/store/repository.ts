// One repository per table group and database: the helper every repository goes through, so its statements are
// prepared once per database however many modules ask for it.
import type { Db } from './index.js'

/** Wraps a repository factory so each database gets exactly one instance. */
export function perDatabase<R>(create: (db: Db) => R): (db: Db) => R {
  const made = new WeakMap<Db, R>()
  return (db) => {
    let repo = made.get(db)
    if (!repo) {
      repo = create(db)
      made.set(db, repo)
    }
    return repo
  }
}
