import { beforeAll, it } from 'vitest'
import { request } from 'undici'
import { generateSyntheticBars, SYNTHETIC_PRESETS } from '../../src/engines/trading/index.js'
import { listeningTestApp } from '../helper.js'
import { storeDataset } from './large-dataset.js'
import { besideHealth, pastStartReport } from './monitor.js'
const host = listeningTestApp({})
let id = ''
beforeAll(async () => {
  await storeDataset(host.app, 'LONG', '15m', generateSyntheticBars({ ...SYNTHETIC_PRESETS.intraday100k.spec, bars: 250_000 }))
  await pastStartReport(host.app)
  const res = await request(`${host.base}/api/v11/trading/backtest`, { method: 'POST', headers: { 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ dataset: 'LONG', strategy: 'sma_cross', params: { fast: 2, slow: 5 }, include: ['equity', 'trades'] }) })
  id = ((await res.body.json()) as any).id
  for (;;) { const s = ((await (await request(`${host.base}/api/v11/jobs/${id}`)).body.json()) as any).state; if (s === 'succeeded') break; await new Promise((r) => setTimeout(r, 100)) }
}, 120_000)
it('probe', async () => {
  for (const label of ['result', 'events']) {
    await besideHealth(host.base, label, async () => {
      await Promise.all(Array.from({ length: 4 }, async () => { const res = await request(`${host.base}/api/v11/jobs/${id}/${label}`); let n = 0; for await (const c of res.body) n += c.length; return n }))
    })
  }
}, 120_000)
