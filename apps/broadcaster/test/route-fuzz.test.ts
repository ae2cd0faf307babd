import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  ADMIN_ROUTES, cleanupAll, createHttpClient, createStack, fileFingerprint, fuzzRoutes, KIT_ROUTES, LIGHT_CHANNEL, stateFingerprint, type BroadcasterHandle
} from '@arus/testkit'

// Issue 39 item 9 against the built broadcaster process: every route of its OpenAPI
// document, with and without the token, gets hostile path parameters (keys of
// Object.prototype, dot segments, encoded slashes, NUL, 5,000 characters) and hostile bodies.
// Every answer is a 4xx (never a 5xx), the daemon stays up, and neither its API's view of its
// state nor its data directory (channels.json, feed identities, snapshots) changes.

const ctx = { onTestFinished: () => {} }
let broadcaster: BroadcasterHandle
let baseUrl: string
let token: string

beforeAll(async () => {
  const stack = await createStack(ctx, { broadcasters: 1 })
  broadcaster = stack.broadcasters[0]!
  baseUrl = broadcaster.controlUrl!
  token = await createHttpClient(baseUrl).login(broadcaster.operator.name, broadcaster.operator.password)
  // A stopped channel: lookups have a real entry beside the hostile keys (nothing runs ffmpeg).
  await broadcaster.api('POST', '/api/channels', { id: 'known', ...LIGHT_CHANNEL })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

it('answers hostile path parameters and bodies on every route with a 4xx, stays up and changes nothing', async () => {
  const files = await fileFingerprint(broadcaster.dataDir)
  const report = await fuzzRoutes({ baseUrl, token })
  expect(report.failures.map((f) => `${f.route} [${f.variant}] → ${f.status} ${f.body.slice(0, 160)}`)).toEqual([])
  expect(report.after).toEqual(report.before)
  expect(await fileFingerprint(broadcaster.dataDir)).toEqual(files)
  expect(report.routes).toEqual(expect.arrayContaining([...KIT_ROUTES, ...ADMIN_ROUTES, 'GET /api/channels/{id}', 'PATCH /api/channels/{id}', 'POST /api/channels/{id}/start']))
  // Hostile ids got past validation into the channel lookups (404), not only refused by a schema.
  expect(report.reached).toBeGreaterThan(100)
  expect((await broadcaster.api('GET', '/api/channels/known')).running).toBe(false)
}, 55_000)

it('has fingerprints that see a real change', async () => {
  const before = await stateFingerprint({ baseUrl, token })
  const files = await fileFingerprint(broadcaster.dataDir)
  await broadcaster.api('PATCH', '/api/channels/known', { title: 'Known' })
  expect(await stateFingerprint({ baseUrl, token })).not.toEqual(before)
  const after = await fileFingerprint(broadcaster.dataDir)
  expect(Object.keys(after).filter((k) => after[k] !== files[k])).toEqual(['channels.json'])
}, 20_000)
