import { it, expect } from 'vitest'
import { buildTestApp } from '../helper.js'
it('proto', async () => {
  const app = await buildTestApp()
  const res = await app.inject({ method: 'POST', url: '/api/v1/jsonsat', payload: { formula: { and: [{ var: '__proto__' }, { var: 'constructor' }, { not: { var: 'toString' } }] } }, headers: { accept: 'application/json' } })
  console.log(res.statusCode, res.body)
  await app.close()
})
