import { describe, expect, it } from 'vitest'
import { displayPath } from './collect.js'

describe('displayPath (the report never shows an absolute host path)', () => {
  const root = '/srv/app'
  it('is relative to DATA_DIR first, then to the repo root', () => {
    expect(displayPath('/var/lib/ncm/ncm-hub.sqlite', root, '/var/lib/ncm')).toBe('$DATA_DIR/ncm-hub.sqlite')
    expect(displayPath('/srv/app/data/ncm-hub.sqlite', root, '/srv/app/data')).toBe('$DATA_DIR/ncm-hub.sqlite')
    expect(displayPath('/srv/app/src/store/migrations', root, '/srv/app/data')).toBe('src/store/migrations')
    expect(displayPath('/var/lib/ncm', root, '/var/lib/ncm')).toBe('$DATA_DIR')
  })
  it('hides paths outside both, keeping only the file name', () => {
    expect(displayPath('/elsewhere/secret/db.sqlite', root, '/var/lib/ncm')).toBe('<outside the repo and DATA_DIR>/db.sqlite')
    expect(displayPath('/srv/application/x.sqlite', root, '/data')).toBe('<outside the repo and DATA_DIR>/x.sqlite')
    expect(displayPath(':memory:', root, '/data')).toBe(':memory:')
  })
})
