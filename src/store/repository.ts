// One repository per table group and database: the helper every repository goes through, so however many modules ask
// for a repository of one database they share one instance (and whatever it keeps, such as a grant's last-use times).
import type { Sql } from './sql.js'

/** Wraps a repository factory so each database (its Sql) gets exactly one instance. */
export function perDatabase<R>(create: (sql: Sql) => R): (sql: Sql) => R {
  const made = new WeakMap<Sql, R>()
  return (sql) => {
    let repo = made.get(sql)
    if (!repo) {
      repo = create(sql)
      made.set(sql, repo)
    }
    return repo
  }
}
