// Idempotency keys of the paper ledger are per principal: stored as the owner's name, a space, then the client's key
// (visible ASCII, never a space), so one principal's key never replays another's cycle.

export const ownedKey = (owner: string, clientKey: string): string => `${owner} ${clientKey}`

/** The part of a stored key the client sent (what answers and the public ledger show). */
export const clientKeyOf = (stored: string): string => stored.slice(stored.lastIndexOf(' ') + 1)
