import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN_ROUTES, cleanupAll, createHttpClient, createTestnet, fileFingerprint, fuzzRoutes, KIT_ROUTES, startLibrary, stateFingerprint, type LibraryHandle
} from '@arus/testkit'

// Issue 39 item 9 against the built library process: every route of its OpenAPI document,
// with and without the token, gets hostile path parameters (keys of Object.prototype, dot
// segments, encoded slashes, NUL, 5,000 characters) and hostile bodies. Every answer is a
// 4xx (never a 5xx), the daemon stays up, and neither its API's view of its state nor its
// data directory (titles.json, the title keys, snapshots, the Corestore) changes.

const ctx = { onTestFinished: () => {} }
let library: LibraryHandle
let baseUrl: string
let token: string

beforeAll(async () => {
  const testnet = await createTestnet(ctx)
  library = await startLibrary(ctx, { bootstrap: testnet.bootstrapString })
  baseUrl = library.controlUrl!
  token = await createHttpClient(baseUrl).login(library.operator.name, library.operator.password)
  // One title (its input is missing, so it settles in 'error' at once): lookups have a real entry beside the hostile keys.
  await library.api('POST', '/api/titles', { id: 'known', input: '/nonexistent/known.mp4' })
  await library.waitTitle('known', { state: 'error', timeoutMs: 20_000 })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

it('answers hostile path parameters and bodies on every route with a 4xx, stays up and changes nothing', async () => {
  const files = await fileFingerprint(library.dataDir)
  const report = await fuzzRoutes({ baseUrl, token })
  expect(report.failures.map((f) => `${f.route} [${f.variant}] → ${f.status} ${f.body.slice(0, 160)}`)).toEqual([])
  expect(report.after).toEqual(report.before)
  expect(await fileFingerprint(library.dataDir)).toEqual(files)
  expect(report.routes).toEqual(expect.arrayContaining([...KIT_ROUTES, ...ADMIN_ROUTES, 'GET /api/titles/{id}', 'PATCH /api/titles/{id}', 'DELETE /api/titles/{id}']))
  // Hostile ids got past validation into the title lookups (404), not only refused by a schema.
  expect(report.reached).toBeGreaterThan(100)
  expect((await library.api('GET', '/api/titles/known')).state).toBe('error')
}, 50_000)

it('has fingerprints that see a real change', async () => {
  const before = await stateFingerprint({ baseUrl, token })
  const files = await fileFingerprint(library.dataDir)
  await library.api('PATCH', '/api/titles/known', { mode: 'copy' })
  expect(await stateFingerprint({ baseUrl, token })).not.toEqual(before)
  const after = await fileFingerprint(library.dataDir)
  expect(Object.keys(after).filter((k) => after[k] !== files[k])).toEqual(['titles.json'])
}, 20_000)
