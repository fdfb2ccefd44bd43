import { it } from 'vitest'
import { buildTestApp } from '../../../../test/helper.js'
import type { Mill } from '../../../mill/pool.js'
it('time', async () => {
  for (let i = 0; i < 3; i++) {
    let t = performance.now()
    const app = await buildTestApp()
    const t1 = performance.now()
    await app.close()
    const t2 = performance.now()
    const idle: Mill = { run: async () => { throw new Error('x') }, isSaturated: () => false, agents: () => [], stats: () => ({ threads: 0, max_queue: 0, queue_size: 0, running: 0, completed: 0, utilization: 0, timeouts: 0, rejected_full: 0 }), close: async () => {} }
    const app2 = await buildTestApp({ mill: idle })
    const t3 = performance.now()
    await app2.close()
    console.log('with mill', (t1 - t).toFixed(0), 'close', (t2 - t1).toFixed(0), 'no mill', (t3 - t2).toFixed(0))
  }
})
