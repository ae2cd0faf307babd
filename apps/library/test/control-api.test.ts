import { afterAll, beforeAll, expect, it } from 'vitest'
import { cleanupAll, createHttpClient, createTestnet, startLibrary, type LibraryHandle } from '@arus/testkit'

// The control API of the built library process over real HTTP (issue 44): the log query caps
// `?lines` instead of refusing it (item 6), and a body-less POST or DELETE sent with
// `content-type: application/json` (what many HTTP clients and scripts send) is a request
// without a body — the kit's JSON parser, shared by every daemon — not a 400 (item 8).

const ctx = { onTestFinished: () => {} }
let library: LibraryHandle
let token: string

beforeAll(async () => {
  const testnet = await createTestnet(ctx)
  library = await startLibrary(ctx, { bootstrap: testnet.bootstrapString })
  token = await createHttpClient(library.controlUrl!).login(library.operator.name, library.operator.password)
  await library.api('POST', '/api/titles', { id: 'known', input: '/nonexistent/known.mp4' })
  await library.waitTitle('known', { state: 'error', timeoutMs: 20_000 })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

const bodyless = (method: string, path: string) => fetch(library.controlUrl! + path, {
  method, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
})

it('caps ?lines of the title logs at 400 instead of refusing a larger count', async () => {
  const all = await library.call('GET', '/api/titles/known/logs?lines=400')
  expect(all.status).toBe(200)
  expect(all.body.lines.length).toBeGreaterThan(0)
  for (const n of ['401', '5000']) {
    const r = await library.call('GET', `/api/titles/known/logs?lines=${n}`)
    expect([r.status, r.body]).toEqual([200, all.body])
  }
  const one = await library.call('GET', '/api/titles/known/logs?lines=1')
  expect(one.body.lines).toEqual(all.body.lines.slice(-1))
  for (const bad of ['0', '-1', 'x']) expect((await library.call('GET', `/api/titles/known/logs?lines=${bad}`)).status).toBe(400)
})

it('takes a body-less POST and DELETE with content-type application/json as requests without a body', async () => {
  const ingest = await bodyless('POST', '/api/titles/known/ingest')
  expect(ingest.status).toBe(200)
  expect(await ingest.json()).toMatchObject({ id: 'known' })
  await library.waitTitle('known', { state: 'error', timeoutMs: 20_000 })
  // A route that needs a body still says so, naming it.
  const add = await bodyless('POST', '/api/titles')
  expect(add.status).toBe(400)
  expect(await add.json()).toMatchObject({ error: { code: 'SERVICE_VALIDATION_FAILED', message: expect.stringContaining('body') } })
  const del = await bodyless('DELETE', '/api/titles/known')
  expect([del.status, await del.json()]).toEqual([200, { deleted: 'known' }])
  expect((await library.call('GET', '/api/titles/known')).status).toBe(404)
}, 40_000)
