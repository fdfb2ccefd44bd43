// The MCP sessions of this process with a share per principal beside the global cap: a principal at its share loses its
// own least recently used session to a new one; at the global cap the session that goes is the least recently used of
// the principal holding the most. So 300 anonymous initializes evict their own sessions, never an admin's.

export interface OwnedSession {
  /** The principal that initialized it (Principal.owner); only it may use the session id. */
  owner: string
  lastSeen: number
}

export interface SessionBook<S extends OwnedSession> {
  get(id: string): S | undefined
  /** Marks a session used now (it becomes the most recently used). */
  touch(id: string, now: number): void
  add(id: string, session: S): void
  /** Forgets a session; answers it (null when unknown). */
  remove(id: string): S | null
  readonly size: number
  entries(): IterableIterator<[string, S]>
  /** The session to close before `owner` opens another, or null when there is room. */
  victimFor(owner: string): string | null
}

export function createSessionBook<S extends OwnedSession>(max: number, perOwner: number): SessionBook<S> {
  // Map order is insertion order: re-inserting on use keeps the least recently used first.
  const sessions = new Map<string, S>()
  const held = new Map<string, number>()
  const oldestOf = (owner: string): string | null => {
    for (const [id, session] of sessions) if (session.owner === owner) return id
    return null
  }
  return {
    get: (id) => sessions.get(id),
    touch(id, now) {
      const session = sessions.get(id)
      if (!session) return
      session.lastSeen = now
      sessions.delete(id)
      sessions.set(id, session)
    },
    add(id, session) {
      if (sessions.has(id)) return
      sessions.set(id, session)
      held.set(session.owner, (held.get(session.owner) ?? 0) + 1)
    },
    remove(id) {
      const session = sessions.get(id)
      if (!session) return null
      sessions.delete(id)
      const left = held.get(session.owner)! - 1
      if (left === 0) held.delete(session.owner)
      else held.set(session.owner, left)
      return session
    },
    get size() {
      return sessions.size
    },
    entries: () => sessions.entries(),
    victimFor(owner) {
      if ((held.get(owner) ?? 0) >= perOwner) return oldestOf(owner)
      if (sessions.size < max) return null
      let largest: string | null = null
      for (const [who, count] of held) if (largest === null || count > held.get(largest)!) largest = who
      return largest === null ? null : oldestOf(largest)
    },
  }
}
