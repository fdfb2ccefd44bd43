// A read-only connection to a SQLite file another process writes: a test watches a live server's database from
// outside (WAL lets a reader beside the writer), e.g. to kill the server at a chosen moment of a write.
import Database from 'better-sqlite3'

export interface SqliteReader {
  /** The first row of a statement (the last committed state), or undefined. */
  get<T>(sql: string, ...params: unknown[]): T | undefined
  close(): void
}

export function openSqliteReader(path: string): SqliteReader {
  const db = new Database(path, { readonly: true, fileMustExist: true })
  db.pragma('busy_timeout = 5000')
  const statements = new Map<string, Database.Statement>()
  return {
    get<T>(sql: string, ...params: unknown[]) {
      let statement = statements.get(sql)
      if (!statement) statements.set(sql, (statement = db.prepare(sql)))
      return statement.get(...params) as T | undefined
    },
    close: () => db.close(),
  }
}
