import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import { generateSigningKeyPair, newSalt, toHex } from '@arus/crypto'
import { RpcError, type RpcClient } from '@arus/rpc'
import { cleanupAll, linkToPanel, type PanelLink } from '@arus/testkit'
import { runLogin } from '../../src/login.js'
import { PhaseTrace } from '../../src/trace.js'
import { api, createStack, panel, runPanel, type Stack } from '../helpers/stack.js'

// Argon2id starts with the salt and cost that come first: the panel's `kdf` answer or the
// replica's record (docs/architecture.md "The first login"). Against a real panel, these cases
// hold the record back or change what the panel's link answers, and read the login's trace.
const ctx = { onTestFinished: () => {} }
let stack: Stack
let link: PanelLink

beforeAll(async () => {
  // A real cost (64 MiB, 2 passes: tens of ms), so the overlaps below are visible in the trace.
  stack = await createStack(ctx, { ARGON2_MEM_KIB: '65536', ARGON2_OPS: '2' })
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

/** The link's RPC client with its `kdf` replaced. */
function withKdf (rpc: RpcClient, kdf: RpcClient['kdf']): RpcClient {
  return { ...rpc, kdf }
}

async function login (rpc: RpcClient, reader: CatalogReader, username: string, password: string) {
  const trace = new PhaseTrace()
  const outcome = await runLogin(rpc, reader, { username, password, device: generateSigningKeyPair() }, trace)
  await outcome.enrolled
  const phase = (name: string) => trace.phases.find((p) => p.name === name)!
  return { outcome, trace, phase, end: (name: string) => phase(name).startMs + phase(name).ms }
}

describe('the Argon2id input', () => {
  it("starts with the panel's kdf answer while the record is still on its way", async () => {
    const { outcome, trace, phase, end } = await login(link.rpc, slowFirstRead(link.reader, 400), 'alice', 'alice-pw')
    expect([...outcome.state.keys.keys()]).toEqual(['one'])
    expect(trace.phases.filter((p) => p.name === 'argon2id')).toHaveLength(1)
    expect(phase('argon2id').startMs).toBeGreaterThanOrEqual(end('kdf call') - 0.2)
    expect(phase('argon2id').startMs).toBeGreaterThanOrEqual(end('oprf call') - 0.2)
    // Started long before the held-back record came (it was held 400 ms).
    expect(phase('argon2id').startMs).toBeLessThan(end('user record') - 300)
  })

  it('takes them from the record when the panel has no kdf method (an older panel)', async () => {
    const older = withKdf(link.rpc, () => Promise.reject(RpcError.unknownMethod()))
    const { outcome, trace, phase, end } = await login(older, slowFirstRead(link.reader, 200), 'alice', 'alice-pw')
    expect([...outcome.state.keys.keys()]).toEqual(['one'])
    expect(trace.phases.filter((p) => p.name === 'argon2id')).toHaveLength(1)
    expect(phase('argon2id').startMs).toBeGreaterThanOrEqual(end('user record') - 0.2)
  })

  it('runs again with the record\'s salt when the kdf answer named another (a password rotated in between)', async () => {
    const stale = withKdf(link.rpc, async (req) => ({ ...(await link.rpc.kdf(req)), salt: toHex(newSalt()) }))
    const { outcome, trace, end } = await login(stale, slowFirstRead(link.reader, 200), 'alice', 'alice-pw')
    expect([...outcome.state.keys.keys()]).toEqual(['one'])
    const runs = trace.phases.filter((p) => p.name === 'argon2id')
    expect(runs).toHaveLength(2)
    expect(runs[1]!.startMs).toBeGreaterThanOrEqual(end('user record') - 0.2)
  })

  it('an unknown name fails as a wrong password only after its Argon2id run ended', async () => {
    // A costly run (128 MiB, 4 passes: a few hundred ms) and a record (none) that comes soon
    // after the kdf answer: login() must not throw while the run still holds its memory.
    const costly = withKdf(link.rpc, async (req) => ({ ...(await link.rpc.kdf(req)), argon: { opslimit: 4, memlimit: 128 * 1024 * 1024 } }))
    const trace = new PhaseTrace()
    await expect(runLogin(costly, slowFirstRead(link.reader, 50), { username: 'nobody', password: 'x', device: generateSigningKeyPair() }, trace))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    // The phase is recorded when the run ends: it ended before login() threw.
    const run = trace.phases.find((p) => p.name === 'argon2id')
    expect(run).toBeDefined()
    expect(run!.startMs).toBeLessThan(trace.phases.find((p) => p.name === 'user record')!.startMs + trace.phases.find((p) => p.name === 'user record')!.ms)
    expect(trace.phases.map((p) => p.name)).not.toContain('session call')
  })

  it('the session call runs beside Argon2id, and the login resolves only after the verifier matched', async () => {
    const { trace, phase, end } = await login(link.rpc, link.reader, 'alice', 'alice-pw')
    expect(phase('session call').startMs).toBeGreaterThanOrEqual(end('unseal') - 0.2)
    expect(phase('session call').startMs).toBeLessThan(end('argon2id'))
    expect(trace.elapsed()).toBeGreaterThanOrEqual(end('argon2id'))
  })

  it('a record whose seal opens but whose verifier does not match fails as a wrong password, session or not', async () => {
    const trace = new PhaseTrace()
    const tampered = editedRecord(link.reader, (u) => ({ ...u, verifier: toHex(newSalt()) + toHex(newSalt()) }))
    await expect(runLogin(link.rpc, tampered, { username: 'alice', password: 'alice-pw', device: generateSigningKeyPair() }, trace))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(trace.phases.map((p) => p.name)).toContain('argon2id')
  })

  it('a wrong password still fails on the client, with the kdf answer in use', async () => {
    const trace = new PhaseTrace()
    await expect(runLogin(link.rpc, link.reader, { username: 'alice', password: 'not-it', device: generateSigningKeyPair() }, trace))
      .rejects.toMatchObject({ code: 'SDK_WRONG_PASSWORD' })
    expect(trace.phases.map((p) => p.name)).toContain('kdf call')
    expect(trace.phases.map((p) => p.name)).not.toContain('session call')
  })
})
