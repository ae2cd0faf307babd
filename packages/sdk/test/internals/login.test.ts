import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import { generateSigningKeyPair, newSalt, toHex } from '@arus/crypto'
import type { RpcClient } from '@arus/rpc'
import { cleanupAll, linkToPanel, type PanelLink } from '@arus/testkit'
import { runLogin } from '../../src/login.js'
import { PhaseTrace } from '../../src/trace.js'
import { api, createStack, panel, runPanel, type Stack } from '../helpers/stack.js'

// The login proves the password with the seal of the record's X25519 secret (client-side) and
// the auth key's signature (checked by the panel); it runs no Argon2id (docs/architecture.md
// "The first login"). Against a real panel, these cases hold the record back, change what the
// replica answers, or count what the link is asked, and read the login's trace.
const ctx = { onTestFinished: () => {} }
let stack: Stack
let link: PanelLink

beforeAll(async () => {
  // The default Argon2id cost: the verifier in alice's record is the real one.
  stack = await createStack(ctx, { ARGON2_MEM_KIB: '65536', ARGON2_OPS: '3' })
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  await api(stack, 'POST', '/api/streams', { id: 'one', title: 'One' })
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'one' })
  link = await linkToPanel(ctx, stack.testnet, stack.panelKey)
}, 90_000)

afterAll(async () => { await cleanupAll() }, 60_000)

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

/** The link's reader, with its first user read held back by `ms`. */
function slowFirstRead (reader: CatalogReader, ms: number): CatalogReader {
  let first = true
  return new Proxy(reader, {
    get (target, prop) {
      if (prop === 'getUser') {
        return async (name: string) => {
          if (first) { first = false; await sleep(ms) }
          return target.getUser(name)
        }
      }
      const value = Reflect.get(target, prop, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
}

/** The link's reader, answering user/<name> with `edit` applied to the record. */
function editedRecord (reader: CatalogReader, edit: (u: UserRecord) => UserRecord): CatalogReader {
  return new Proxy(reader, {
    get (target, prop) {
      if (prop === 'getUser') return async (name: string) => { const u = await target.getUser(name); return u === null ? null : edit(u) }
      const value = Reflect.get(target, prop, target) as unknown
      return typeof value === 'function' ? value.bind(target) : value
    }
  })
}

/** The link's RPC client, counting the calls of each method. */
function counting (rpc: RpcClient): { rpc: RpcClient, calls: Map<string, number> } {
  const calls = new Map<string, number>()
  const wrapped = new Proxy(rpc, {
    get (target, prop) {
      const value = Reflect.get(target, prop, target) as unknown
      if (typeof value !== 'function') return value
      return (...args: unknown[]) => {
        calls.set(String(prop), (calls.get(String(prop)) ?? 0) + 1)
        return (value as (...a: unknown[]) => unknown).apply(target, args)
      }
    }
  })
  return { rpc: wrapped, calls }
}

async function login (rpc: RpcClient, reader: CatalogReader, username: string, password: string) {
  const trace = new PhaseTrace()
  const outcome = await runLogin(rpc, reader, { username, password, device: generateSigningKeyPair() }, trace)
  await outcome.enrolled
  const phase = (name: string) => trace.phases.find((p) => p.name === name)!
  return { outcome, trace, phase, end: (name: string) => phase(name).startMs + phase(name).ms }
}

describe('the login', () => {
  it('proves the password without Argon2id: no kdf call, no verifier run, the record read beside the OPRF round', async () => {
    const { rpc, calls } = counting(link.rpc)
    const { outcome, trace, phase, end } = await login(rpc, slowFirstRead(link.reader, 300), 'alice', 'alice-pw')
    expect([...outcome.state.keys.keys()]).toEqual(['one'])
    expect(outcome.state.token.length).toBeGreaterThan(0)
    const names = trace.phases.map((p) => p.name)
    expect(names).not.toContain('argon2id')
    expect(names).not.toContain('kdf call')
    expect(Object.fromEntries(calls)).toEqual({ hello: 1, login: 1, session: 1 })
    // The held-back record (300 ms) is what the unseal and the session call waited for.
    expect(phase('catalog update').startMs).toBeLessThan(phase('hello').startMs)
    expect(phase('user record').ms).toBeGreaterThanOrEqual(300)
    expect(phase('unseal').startMs).toBeGreaterThanOrEqual(end('user record') - 0.2)
    expect(phase('session call').startMs).toBeGreaterThanOrEqual(end('unseal') - 0.2)
  })

  it('a wrong password fails at the seal, on the client: no session call reaches the panel', async () => {
    const { rpc, calls } = counting(link.rpc)
    const trace = new PhaseTrace()
    await expect(runLogin(rpc, link.reader, { username: 'alice', password: 'not-it', device: generateSigningKeyPair() }, trace))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(calls.get('session')).toBeUndefined()
    expect(trace.phases.map((p) => p.name)).not.toContain('session call')
  })

  it('an unknown name fails as a wrong password, with no session call', async () => {
    const { rpc, calls } = counting(link.rpc)
    await expect(runLogin(rpc, link.reader, { username: 'nobody', password: 'x', device: generateSigningKeyPair() }))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(calls.get('login')).toBe(1)
    expect(calls.get('session')).toBeUndefined()
  })

  it('the seal is what the client checks: a sealed secret that does not open fails with the right password', async () => {
    const { rpc, calls } = counting(link.rpc)
    const tampered = editedRecord(link.reader, (u) => ({ ...u, encPriv: u.encPriv.slice(0, -2) + (u.encPriv.endsWith('00') ? '01' : '00') }))
    await expect(runLogin(rpc, tampered, { username: 'alice', password: 'alice-pw', device: generateSigningKeyPair() }))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(calls.get('session')).toBeUndefined()
  })

  it("the record's verifier is not read: a different one changes nothing (it proves nothing the seal does not)", async () => {
    const other = editedRecord(link.reader, (u) => ({ ...u, verifier: toHex(newSalt()) + toHex(newSalt()) }))
    const { outcome } = await login(link.rpc, other, 'alice', 'alice-pw')
    expect([...outcome.state.keys.keys()]).toEqual(['one'])
  })
})
