import { afterAll, beforeAll, expect, it } from 'vitest'
import {
  cleanupAll, createHttpClient, createStack, fileFingerprint, fuzzRoutes, KIT_ROUTES, startReseller, stateFingerprint, type ResellerHandle
} from '@arus/testkit'

// Issue 39 item 9 against the built reseller process (driving a real panel): every route of
// its OpenAPI document, with and without the token, gets hostile path parameters (keys of
// Object.prototype, dot segments, encoded slashes, NUL, 5,000 characters) and hostile bodies.
// Every answer is a 4xx (never a 5xx: credits are never minted, moved or spent by one), the
// daemon stays up, and neither its API's view of its state nor its data directory (the
// ledger, principals, accounts, snapshots) changes.

const ctx = { onTestFinished: () => {} }
let reseller: ResellerHandle
let baseUrl: string
let token: string

beforeAll(async () => {
  const stack = await createStack(ctx, {})
  await stack.panel.api('POST', '/api/streams', { id: 'news' })
  await stack.panel.api('POST', '/api/packages', { name: 'starter', members: ['news'], default: true })
  // The test env sweeps every second: its run counter would move the fingerprint with nothing changed.
  reseller = await startReseller(ctx, { panel: stack.panel, env: { SWEEP_INTERVAL_SEC: '3600' } })
  baseUrl = reseller.url!
  token = await createHttpClient(baseUrl).login(reseller.root.name, reseller.root.password)
  // Real entries beside the hostile keys: credits, a principal below root and an account.
  await reseller.api('POST', '/api/credits/mint', { amount: 100 })
  await reseller.api('POST', '/api/principals', { username: 'shop', password: 'shop-password', role: 'reseller' })
  await reseller.api('POST', '/api/accounts', { name: 'viewer1', password: 'viewer-password', months: 1 })
}, 60_000)

afterAll(async () => { await cleanupAll() }, 30_000)

it('answers hostile path parameters and bodies on every route with a 4xx, stays up and changes nothing', async () => {
  const files = await fileFingerprint(reseller.dataDir)
  const report = await fuzzRoutes({ baseUrl, token })
  expect(report.failures.map((f) => `${f.route} [${f.variant}] → ${f.status} ${f.body.slice(0, 160)}`)).toEqual([])
  expect(report.after).toEqual(report.before)
  expect(await fileFingerprint(reseller.dataDir)).toEqual(files)
  expect(report.routes).toEqual(expect.arrayContaining([...KIT_ROUTES, 'GET /api/principals/{name}', 'DELETE /api/accounts/{acct}', 'POST /api/credits/mint']))
  // Operator actions that take no input are not run by a body (see fuzzRoutes); their token-less requests were refused.
  expect(report.skipped.map((s) => s.route)).toEqual(['POST /api/ops/sweep', 'POST /api/ops/reconcile'])
  // Hostile names got past validation into the principal and account lookups (404), not only refused by a schema.
  expect(report.reached).toBeGreaterThan(100)
}, 55_000)

it('has fingerprints that see a real change', async () => {
  const before = await stateFingerprint({ baseUrl, token })
  const files = await fileFingerprint(reseller.dataDir)
  await reseller.api('POST', '/api/credits/transfer', { to: 'shop', amount: 1 })
  expect(await stateFingerprint({ baseUrl, token })).not.toEqual(before)
  const after = await fileFingerprint(reseller.dataDir)
  expect(Object.keys(after).filter((k) => after[k] !== files[k])).toEqual(['ledger.jsonl'])
}, 20_000)
