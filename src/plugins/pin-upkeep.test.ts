// The host sweeps pin parts a crash left without their row on its own timer, and waits for a sweep under way on close.
import Fastify from 'fastify'
import fp from 'fastify-plugin'
import { afterAll, expect, it } from 'vitest'
import { ORPHAN_AFTER_MS } from '../store/orphan-sweep.js'
import { testStores } from '../store/test-backends.js'
import pinUpkeepPlugin from './pin-upkeep.js'

const stores = testStores()
afterAll(() => stores.cleanup())

it('removes pin parts left without their row on its timer', async () => {
  const store = await stores.open('sqlite')
  await store.sql.run("INSERT INTO pin_parts (digest, seq, created_at, content) VALUES ('sha256:orphan', 0, 0, ?)", [Buffer.from('x')])
  const app = Fastify()
  await app.register(fp(async (a) => void a.decorate('store', store), { name: 'ncm-store' }))
  await app.register(pinUpkeepPlugin, { clock: { now: () => ORPHAN_AFTER_MS }, everyMs: 10 })
  await app.ready()
  const left = async () => Number((await store.sql.get<{ n: number }>('SELECT count(*) AS n FROM pin_parts'))!.n)
  for (let waited = 0; waited < 2_000 && (await left()) > 0; waited += 10) await new Promise((r) => setTimeout(r, 10))
  expect(await left()).toBe(0)
  await app.close()
})
