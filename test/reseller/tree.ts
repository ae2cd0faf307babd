import { expect } from 'vitest'
import { createHttpClient, type HttpClient, type HttpReply, type ResellerHandle } from '@arus/testkit'

/**
 * The principal tree the role tests (roles.test.ts) build through the reseller API, as each
 * parent: root (admin) → coadmin, coadmin2 (co-admins), supA, supB (supers); supA → resA1,
 * resA2; supB → resB1; coadmin → supC. Credits flow down by MINT and TRANSFER, and every
 * principal but coadmin2 activates one account, `acc-<name>`. Below it: how one call of the
 * route × role matrix is made and classified.
 */

export const ROLES = ['admin', 'co-admin', 'super', 'reseller'] as const
export type Role = typeof ROLES[number]

/** Where a target sits for the caller: itself, its own subtree, outside it, or above it (an ancestor, the root, a peer co-admin). */
export const RELATIONS = ['self', 'below', 'foreign', 'above'] as const
export type Relation = typeof RELATIONS[number]

interface Node { name: string; role: Exclude<Role, 'admin'>; parent: string; credits: number }

/** In creation order (a parent before its children); `credits` is what the parent transfers. */
const NODES: readonly Node[] = [
  { name: 'coadmin', role: 'co-admin', parent: 'root', credits: 500 },
  { name: 'coadmin2', role: 'co-admin', parent: 'root', credits: 50 },
  { name: 'supA', role: 'super', parent: 'root', credits: 500 },
  { name: 'supB', role: 'super', parent: 'root', credits: 200 },
  { name: 'supC', role: 'super', parent: 'coadmin', credits: 100 },
  { name: 'resA1', role: 'reseller', parent: 'supA', credits: 150 },
  { name: 'resA2', role: 'reseller', parent: 'supA', credits: 50 },
  { name: 'resB1', role: 'reseller', parent: 'supB', credits: 50 }
]
export const ROOT = 'root'
export const PRINCIPALS: readonly string[] = [ROOT, ...NODES.map((n) => n.name)]
const NO_ACCOUNT = new Set(['coadmin2'])
export const account = (principal: string): string => `acc-${principal}`
export const hasAccount = (principal: string): boolean => !NO_ACCOUNT.has(principal)
export const ACCOUNTS: readonly string[] = PRINCIPALS.filter(hasAccount).map(account)
export const VIEWER_PASSWORD = 'viewer-pass'

/** Who plays each role in the matrix. */
export const CALLERS: Record<Role, string> = { admin: ROOT, 'co-admin': 'coadmin', super: 'supA', reseller: 'resA1' }

/** Each caller's targets by relation; empty where the relation cannot exist (nothing is foreign to the root). */
export const TARGETS: Record<Role, Record<Relation, readonly string[]>> = {
  admin: { self: [ROOT], below: ['coadmin', 'supA', 'resA1'], foreign: [], above: [] },
  'co-admin': { self: ['coadmin'], below: ['supC'], foreign: ['supA', 'resB1'], above: [ROOT, 'coadmin2'] },
  super: { self: ['supA'], below: ['resA1', 'resA2'], foreign: ['supB', 'resB1', 'supC'], above: ['coadmin', ROOT] },
  reseller: { self: ['resA1'], below: [], foreign: ['resA2', 'resB1'], above: ['supA', ROOT] }
}

const parentOf = (name: string): string | null => NODES.find((n) => n.name === name)?.parent ?? null
export const roleOf = (name: string): Role => NODES.find((n) => n.name === name)?.role ?? 'admin'

/** `name` and every fixture principal below it. */
export function subtree (name: string): string[] {
  const below = (p: string): string[] => [p, ...NODES.filter((n) => n.parent === p).flatMap((n) => below(n.name))]
  return below(name)
}

/** A principal's HTTP client: logs in lazily, and again once when a password or status change ended its session. */
export interface Client {
  readonly name: string
  call<T = any>(method: string, path: string, body?: unknown): Promise<HttpReply<T>>
}

export interface Tree {
  readonly root: Client
  /** No token at all. */
  readonly anonymous: HttpClient
  client(name: string): Client
  password(name: string): string
  /** A name no test used before (`tmp-<prefix>-<n>`). */
  fresh(prefix: string): string
  /** A new principal of `like`'s role under `like`'s parent (same relation to any caller), or null for the root. */
  throwawayPrincipal(like: string): Promise<string | null>
  /** A new one-month account activated by `owner`. */
  throwawayAccount(owner: string): Promise<string>
}

const passwordOf = (name: string, rootPassword: string): string => (name === ROOT ? rootPassword : `${name}-password`)

function clientOf (reseller: ResellerHandle, name: string, password: string): Client {
  const http = reseller.as({ name, password })
  return {
    name,
    async call (method, path, body) {
      // A 401 comes from the auth gate, before any handler: retrying cannot repeat an operation.
      const r = await http.call(method, path, body)
      if (r.status !== 401) return r
      http.reset()
      return http.call(method, path, body)
    }
  }
}

async function ok<T = any> (c: Client, method: string, path: string, body?: unknown): Promise<T> {
  const r = await c.call<T>(method, path, body)
  expect(r.status, `${c.name}: ${method} ${path} ${JSON.stringify(r.body)}`).toBeLessThan(300)
  return r.body
}

/** Builds the tree on a fresh reseller (its root admin seeded by startReseller). */
export async function buildTree (reseller: ResellerHandle): Promise<Tree> {
  const clients = new Map<string, Client>()
  const password = (name: string) => passwordOf(name, reseller.root.password)
  const client = (name: string): Client => {
    let c = clients.get(name)
    if (c === undefined) clients.set(name, c = clientOf(reseller, name, password(name)))
    return c
  }
  const root = client(ROOT)
  let n = 0
  const fresh = (prefix: string) => `tmp-${prefix}-${++n}`

  await ok(root, 'POST', '/api/credits/mint', { amount: 10_000, note: 'opening stock' })
  for (const node of NODES) {
    await ok(client(node.parent), 'POST', '/api/principals', { username: node.name, password: password(node.name), role: node.role })
    await ok(client(node.parent), 'POST', '/api/credits/transfer', { to: node.name, amount: node.credits })
  }
  for (const p of PRINCIPALS.filter(hasAccount)) {
    await ok(client(p), 'POST', '/api/accounts', { name: account(p), password: VIEWER_PASSWORD, months: 1 })
  }

  return {
    root,
    anonymous: createHttpClient(reseller.url!),
    client,
    password,
    fresh,
    async throwawayPrincipal (like) {
      const parent = parentOf(like)
      if (parent === null) return null
      const name = fresh('p')
      await ok(client(parent), 'POST', '/api/principals', { username: name, password: password(name), role: roleOf(like) })
      return name
    },
    async throwawayAccount (owner) {
      const name = fresh('a')
      await ok(client(owner), 'POST', '/api/accounts', { name, password: VIEWER_PASSWORD, months: 1 })
      return name
    }
  }
}

// --- one call of the matrix and its class ---

/**
 * Per role, the expected class of a call: A allowed (2xx, or a domain refusal that is not a
 * 403: 402, 404, 409, 429), F forbidden (403 RESELLER_FORBIDDEN), I invalid (400
 * RESELLER_INVALID_INPUT before any scope check). One letter when the route has no target;
 * four when it has one, for the relations self, below, foreign, above ('.' where the caller
 * has no such target, see TARGETS).
 */
export type Expect = Record<Role, string>

/** The target of one call: a principal and its account. */
export interface Names { caller: string; principal: string; acct: string }
export const names = (caller: string, principal: string): Names => ({ caller, principal, acct: account(principal) })

/** Path parameters replacing the target's (a throwaway in the same relation), and how to remove it. */
export interface Prepared { params: Record<string, string>; cleanup?: () => Promise<unknown> }

/** How one route is called, and what each role should get. */
export interface Check {
  what?: string
  /** 'public': no token needed; checked once, without one. */
  expect: Expect | 'public'
  body?: (n: Names) => unknown
  query?: (n: Names) => string
  prepare?: (n: Names) => Promise<Prepared>
  /** Puts back what an allowed call changed (as root). */
  undo?: (n: Names) => Promise<unknown>
}

/** Every denial's body: exactly this envelope. */
export const FORBIDDEN = { error: { code: 'RESELLER_FORBIDDEN', message: expect.any(String) } }

function isForbidden (body: any): boolean {
  return typeof body === 'object' && body !== null && Object.keys(body).length === 1 &&
    typeof body.error === 'object' && body.error !== null && Object.keys(body.error).sort().join() === 'code,message' &&
    body.error.code === 'RESELLER_FORBIDDEN' && typeof body.error.message === 'string' && body.error.message !== ''
}

/** The class of an answer (see Expect), or what it was when it fits none. */
export function classify (r: HttpReply): string {
  const code: unknown = r.body?.error?.code
  if (r.status === 403) return isForbidden(r.body) ? 'F' : `403 ${JSON.stringify(r.body)}`
  if (r.status === 400 && code === 'RESELLER_INVALID_INPUT') return 'I'
  if (r.status >= 200 && r.status < 300) return 'A'
  // A domain refusal past the scope checks: never the kit's SERVICE_* (validation, unknown route),
  // nor RESELLER_NOT_FOUND (every target of the matrix exists: that would be a wrong request).
  if ([402, 404, 409, 429].includes(r.status) && typeof code === 'string' && !code.startsWith('SERVICE_') && code !== 'RESELLER_NOT_FOUND') return 'A'
  return `${r.status} ${JSON.stringify(r.body).slice(0, 200)}`
}

/** One call of `route` ('METHOD /path/:param') as `c` (null: without a token) on the target `n`; a throwaway is removed afterwards. */
export async function attempt (tree: Tree, c: Client | null, route: string, check: Check, n: Names): Promise<{ r: HttpReply; path: string }> {
  const [method, url] = route.split(' ') as [string, string]
  const prepared = await check.prepare?.(n)
  try {
    const params: Record<string, string> = { name: n.principal, acct: n.acct, streamId: 'no-such-stream', id: 'no-such-device', ...prepared?.params }
    const path = url.replace(/:(\w+)/g, (_m, p: string) => encodeURIComponent(params[p] ?? `missing-${p}`)) + (check.query?.(n) ?? '')
    const body = await check.body?.(n)
    return { r: c === null ? await tree.anonymous.call(method, path, body) : await c.call(method, path, body), path }
  } finally {
    await prepared?.cleanup?.()
  }
}
