import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, startReseller, type HttpReply, type ResellerHandle } from '@arus/testkit'
import {
  account, ACCOUNTS, buildTree, CALLERS, hasAccount, PRINCIPALS, RELATIONS, ROLES, ROOT, roleOf, TARGETS, VIEWER_PASSWORD,
  type Client, type Relation, type Role, type Tree
} from './tree.js'

// Issue 16, Done means 3: a route × role matrix, generated from the reseller's own OpenAPI
// document (the route table docs/reseller.md is generated from), against the built panel and
// reseller processes. Every route must have a row in MATRIX below, and every row says, per
// caller role and per target relation (tree.ts), whether the call is allowed or a 403
// RESELLER_FORBIDDEN. The scoped lists, the ledger and the limits get their own tests.

const ctx = { onTestFinished: () => {} }
let reseller: ResellerHandle
let tree: Tree
let routes: string[]

beforeAll(async () => {
  const stack = await createStack(ctx)
  reseller = await startReseller(ctx, { panel: stack.panel })
  tree = await buildTree(reseller)
  const doc = await tree.root.call<{ paths: Record<string, Record<string, unknown>> }>('GET', '/api/openapi.json')
  expect(doc.status).toBe(200)
  routes = Object.entries(doc.body.paths)
    .flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`))
    .sort()
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

// --- the matrix ---

/**
 * Per role, the expected class of a call: A allowed (2xx, or a domain refusal that is not a
 * 403: 402, 404, 409, 429), F forbidden (403 RESELLER_FORBIDDEN), I invalid (400
 * RESELLER_INVALID_INPUT before any scope check). One letter when the route has no target;
 * four when it has one, for the relations self, below, foreign, above ('.' where the caller
 * has no such target, see TARGETS).
 */
type Expect = Record<Role, string>

/** The target of one call: a principal and its account. */
interface Names { caller: string; principal: string; acct: string }

interface Check {
  what?: string
  /** 'public': no token needed; checked once, without one. */
  expect: Expect | 'public'
  body?: (n: Names) => unknown
  query?: (n: Names) => string
  /** Path parameters replacing the target's (a throwaway in the same relation), and how to remove it. */
  prepare?: (n: Names) => Promise<{ params: Record<string, string>; cleanup?: () => Promise<unknown> }>
  /** Puts back what an allowed call changed (as root). */
  undo?: (n: Names) => Promise<unknown>
}

const each = (cell: string): Expect => ({ admin: cell, 'co-admin': cell, super: cell, reseller: cell })
const PUBLIC: Check[] = [{ expect: 'public' }]
const EVERYONE = each('A')
const ADMIN_TIERS: Expect = { admin: 'A', 'co-admin': 'A', super: 'F', reseller: 'F' }
/** See a principal, its ledger lines, its accounts (and change those): admin tiers anyone, a super its subtree, a reseller itself. */
const SEE: Expect = { admin: 'AA..', 'co-admin': 'AAAA', super: 'AAFF', reseller: 'A.FF' }
/** Password, status, limits, delete, reclaim: never itself or the root; co-admins by the root only; a super its subtree. */
const MANAGE: Expect = { admin: 'FA..', 'co-admin': 'FAAF', super: 'FAFF', reseller: 'F.FF' }
const ADMIN_TIERS_MANAGE: Expect = { admin: 'FA..', 'co-admin': 'FAAF', super: 'FFFF', reseller: 'F.FF' }
const ADMIN_TIERS_ANYONE: Expect = { admin: 'AA..', 'co-admin': 'AAAA', super: 'FFFF', reseller: 'F.FF' }

const throwawayPrincipal = async (n: Names) => {
  const name = n.principal === n.caller ? null : await tree.throwawayPrincipal(n.principal)
  if (name === null) return { params: {} }
  return { params: { name }, cleanup: () => tree.root.call('DELETE', `/api/principals/${name}`) }
}
const throwawayAccount = async (n: Names) => {
  const acct = await tree.throwawayAccount(n.principal)
  return { params: { acct }, cleanup: () => tree.root.call('DELETE', `/api/accounts/${acct}`) }
}
const snapshot = async () => {
  const id = (await tree.root.call('POST', '/api/config/snapshots', { note: 'roles matrix' })).body.id as string
  return { params: { id }, cleanup: () => tree.root.call('DELETE', `/api/config/snapshots/${id}`) }
}
const template = async () => ({ template: (await tree.root.call('GET', '/api/config/template')).body, confirm: true })

const MATRIX: Record<string, Check[]> = {
  'GET /healthz': PUBLIC,
  'GET /metrics': PUBLIC,
  'POST /api/login': [{ expect: 'public', body: () => ({ username: ROOT, password: tree.password(ROOT) }) }],
  'GET /branding.json': PUBLIC,
  'GET /branding.css': PUBLIC,
  'GET /branding/logo': PUBLIC,
  'GET /branding/favicon': PUBLIC,
  'GET /branding/login-bg': PUBLIC,
  'POST /api/webhooks/credits': [{ expect: 'public', body: () => ({ id: 'roles-1', to: ROOT, amount: 1 }) }],
  'GET /api/openapi.json': [{ expect: EVERYONE }],

  'GET /api/me': [{ expect: EVERYONE }],
  'POST /api/me/password': [{ expect: EVERYONE, body: (n) => ({ password: tree.password(n.caller) }) }],
  'GET /api/status': [{ expect: EVERYONE }],
  'GET /api/system': [{ expect: ADMIN_TIERS }],
  'GET /api/panel/status': [{ expect: ADMIN_TIERS }],
  'GET /api/streams': [{ expect: EVERYONE }],
  'GET /api/packages': [{ expect: EVERYONE }],

  'GET /api/principals': [{ expect: EVERYONE }],
  'POST /api/principals': [
    { what: 'a co-admin', expect: { admin: 'A', 'co-admin': 'F', super: 'F', reseller: 'F' }, body: () => ({ username: tree.fresh('p'), password: 'tmp-password', role: 'co-admin' }) },
    { what: 'a super', expect: ADMIN_TIERS, body: () => ({ username: tree.fresh('p'), password: 'tmp-password', role: 'super' }) },
    { what: 'a reseller', expect: { admin: 'A', 'co-admin': 'A', super: 'A', reseller: 'F' }, body: () => ({ username: tree.fresh('p'), password: 'tmp-password', role: 'reseller' }) },
    { what: 'a reseller with trialDailyCap', expect: { admin: 'A', 'co-admin': 'A', super: 'A', reseller: 'F' }, body: () => ({ username: tree.fresh('p'), password: 'tmp-password', role: 'reseller', trialDailyCap: 3 }) },
    { what: 'a reseller with maxDevicesLimit', expect: ADMIN_TIERS, body: () => ({ username: tree.fresh('p'), password: 'tmp-password', role: 'reseller', maxDevicesLimit: 2 }) }
  ],
  'GET /api/principals/:name': [{ expect: SEE }],
  'DELETE /api/principals/:name': [{ expect: MANAGE, prepare: throwawayPrincipal }],
  // Observed: a principal may set its own password here too (principals/ops.ts skips the scope check for
  // itself), like POST /api/me/password; the docs table says "all but itself". Reported, not changed.
  'POST /api/principals/:name/password': [{ expect: { ...MANAGE, admin: 'AA..', 'co-admin': 'AAAF', super: 'AAFF', reseller: 'A.FF' }, body: (n) => ({ password: tree.password(n.principal) }) }],
  'POST /api/principals/:name/status': [{
    expect: MANAGE,
    body: () => ({ status: 'disabled', mode: 'panel-only' }),
    undo: (n) => tree.root.call('POST', `/api/principals/${n.principal}/status`, { status: 'active', mode: 'panel-only' })
  }],
  'POST /api/principals/:name/limits': [
    { what: 'trialDailyCap', expect: MANAGE, body: () => ({ trialDailyCap: null }) },
    { what: 'maxDevicesLimit', expect: ADMIN_TIERS_MANAGE, body: () => ({ maxDevicesLimit: null }) }
  ],

  'POST /api/credits/mint': [{ expect: ADMIN_TIERS_ANYONE, body: (n) => ({ to: n.principal, amount: 1, note: 'roles matrix' }) }],
  // To oneself is a 400 for everyone; admin tiers give to anyone, a super to its subtree, a reseller to no one.
  'POST /api/credits/transfer': [{ expect: { admin: 'IA..', 'co-admin': 'IAAA', super: 'IAFF', reseller: 'I.FF' }, body: (n) => ({ to: n.principal, amount: 1 }) }],
  'POST /api/credits/reclaim': [{ expect: MANAGE, body: (n) => ({ from: n.principal, amount: 1 }) }],
  'POST /api/credits/adjust': [{ expect: ADMIN_TIERS_ANYONE, body: (n) => ({ principal: n.principal, amount: 1, note: 'roles matrix' }) }],
  'GET /api/ledger': [
    { what: 'unfiltered', expect: EVERYONE },
    { what: '?principal=', expect: SEE, query: (n) => `?principal=${n.principal}` }
  ],

  'GET /api/accounts': [{ expect: EVERYONE }],
  'POST /api/accounts': [
    { expect: EVERYONE, body: () => ({ name: tree.fresh('a'), password: VIEWER_PASSWORD, months: 1 }) },
    { what: 'with maxDevices', expect: ADMIN_TIERS, body: () => ({ name: tree.fresh('a'), password: VIEWER_PASSWORD, months: 1, maxDevices: 2 }) }
  ],
  'GET /api/accounts/:acct': [{ expect: SEE }],
  'DELETE /api/accounts/:acct': [{ expect: SEE, prepare: throwawayAccount }],
  'POST /api/accounts/:acct/renew': [{ expect: SEE, body: () => ({ months: 1 }) }],
  'POST /api/accounts/:acct/status': [{
    expect: SEE,
    body: () => ({ status: 'disabled' }),
    undo: (n) => tree.root.call('POST', `/api/accounts/${n.acct}/status`, { status: 'active' })
  }],
  'POST /api/accounts/:acct/password': [{ expect: SEE, body: () => ({ password: VIEWER_PASSWORD }) }],
  'POST /api/accounts/:acct/max-devices': [{ expect: ADMIN_TIERS_ANYONE, body: () => ({ maxDevices: 2 }) }],
  // No stream exists: an allowed call reaches the panel, which answers 404.
  'POST /api/accounts/:acct/grants': [{ expect: SEE, body: () => ({ streamId: 'no-such-stream' }) }],
  'DELETE /api/accounts/:acct/grants/:streamId': [{ expect: SEE }],
  'POST /api/accounts/:acct/packages': [{ expect: SEE, body: () => ({ packages: [] }) }],
  'POST /api/accounts/:acct/logout-all': [{ expect: SEE }],
  'GET /api/accounts/:acct/devices': [{ expect: SEE }],
  'DELETE /api/accounts/:acct/devices': [{ expect: SEE }],
  'DELETE /api/accounts/:acct/devices/:id': [{ expect: SEE }],
  'POST /api/trials': [
    { expect: EVERYONE, body: () => ({ name: tree.fresh('t'), password: VIEWER_PASSWORD }) },
    { what: 'with maxDevices', expect: ADMIN_TIERS, body: () => ({ name: tree.fresh('t'), password: VIEWER_PASSWORD, maxDevices: 2 }) }
  ],

  'POST /api/ops/sweep': [{ expect: ADMIN_TIERS }],
  'GET /api/ops/reconcile': [{ expect: ADMIN_TIERS }],
  'POST /api/ops/reconcile': [{ expect: ADMIN_TIERS }],

  // The kit's config routes (@arus/config-snapshots) check only for a session: every role passes.
  // Observed, not endorsed: GET /api/config/template hands a reseller the whole principals tree,
  // and any role may take or delete snapshots (reported). Restore and import answer 409.
  'GET /api/config': [{ expect: EVERYONE }],
  'GET /api/config/snapshots': [{ expect: EVERYONE }],
  'POST /api/config/snapshots': [{ expect: EVERYONE, body: () => ({ note: 'roles matrix' }), prepare: async () => ({ params: {} }) }],
  'GET /api/config/snapshots/:id': [{ expect: EVERYONE, prepare: snapshot }],
  'POST /api/config/snapshots/:id/plan': [{ expect: EVERYONE, body: () => ({}), prepare: snapshot }],
  'POST /api/config/snapshots/:id/restore': [{ expect: EVERYONE, body: () => ({ confirm: true }), prepare: snapshot }],
  'DELETE /api/config/snapshots/:id': [{ expect: EVERYONE, prepare: snapshot }],
  'GET /api/config/template': [{ expect: EVERYONE }],
  'POST /api/config/template/plan': [{ expect: EVERYONE, body: async () => ({ template: (await template()).template }) }],
  'POST /api/config/template/import': [{ expect: EVERYONE, body: template }],
  'GET /api/backups': [{ expect: EVERYONE }]
}
