import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN_ROUTES, cleanupAll, createHttpClient, createTestnet, fileFingerprint, fuzzRoutes, KIT_ROUTES, startPanel, stateFingerprint, type PanelHandle
} from '@arus/testkit'

// Issue 39 item 9 against the built panel process: every route of its OpenAPI document, with
// and without the token, gets hostile path parameters (keys of Object.prototype, dot
// segments, encoded slashes, NUL, 5,000 characters) and hostile bodies. Every answer is a
// 4xx (never a 5xx), the panel stays up, and neither its API's view of its state nor its data
// directory (registries, and the catalog's Corestore) changes.

const ctx = { onTestFinished: () => {} }
let panel: PanelHandle
let baseUrl: string
let token: string

beforeAll(async () => {
  const testnet = await createTestnet(ctx)
  panel = await startPanel(ctx, { testnet, users: [{ name: 'anna', password: 'anna-pw' }] })
  baseUrl = panel.adminUrl!
  token = await createHttpClient(baseUrl).login(panel.admin.name, panel.admin.password)
  // Real entries beside the hostile keys: a stream, a package holding it, a category, a grant.
  await panel.api('POST', '/api/streams', { id: 'news', title: 'News', category: ['Local'] })
  await panel.api('POST', '/api/packages', { name: 'basic', members: ['news'] })
  await panel.api('POST', '/api/users/anna/grants', { streamId: 'news' })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

it('answers hostile path parameters and bodies on every route with a 4xx, stays up and changes nothing', async () => {
  const files = await fileFingerprint(panel.dataDir)
  // A category's presentation record is made by its first edit, and its path segment is a
  // label that is slugified (never a lookup key): that route's parameter is fuzzed without a valid body.
  const report = await fuzzRoutes({ baseUrl, token, upserts: ['PATCH /api/categories/{slug}'] })
  expect(report.failures.map((f) => `${f.route} [${f.variant}] → ${f.status} ${f.body.slice(0, 160)}`)).toEqual([])
  expect(report.after).toEqual(report.before)
  expect(await fileFingerprint(panel.dataDir)).toEqual(files)
  expect(report.routes).toEqual(expect.arrayContaining([...KIT_ROUTES, ...ADMIN_ROUTES, 'GET /api/users/{u}', 'DELETE /api/streams/{id}', 'POST /api/users/{u}/packages']))
  // Hostile names got past validation into the registry and catalog lookups (404), not only refused by a schema.
  expect(report.reached).toBeGreaterThan(200)
}, 55_000)

it('has fingerprints that see a real change', async () => {
  const before = await stateFingerprint({ baseUrl, token })
  const files = await fileFingerprint(panel.dataDir)
  await panel.api('PATCH', '/api/streams/news', { title: 'News 24' })
  expect(await stateFingerprint({ baseUrl, token })).not.toEqual(before)
  const after = await fileFingerprint(panel.dataDir)
  // The catalog append reached the Corestore's write-ahead log.
  expect(Object.keys(after).filter((k) => after[k] !== files[k])).toEqual(expect.arrayContaining([expect.stringMatching(/^store\/db\/\d+\.log$/)]))
}, 20_000)
