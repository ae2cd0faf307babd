import { describe, expect, it } from 'vitest'
import { RpcError, type RpcClient } from '@arus/rpc'
import { Reporter } from '../../src/report.js'

/** The typed client's report(): in-band error replies reject as RPC_REMOTE_ERROR, like @arus/rpc's. */
function fakeRpc (answer: (method: string, value: any) => unknown) {
  const sent: Array<{ method: string; value: any }> = []
  const rpc = {
    report: async (value: unknown) => {
      sent.push({ method: 'report', value: { v: 1, ...(value as object) } })
      const a = answer('report', value) as { error?: string; retryAfter?: number } | Error
      if (a instanceof Error) throw a
      if (typeof a.error === 'string') throw RpcError.remote(a.error, a.retryAfter === undefined ? {} : { retryAfter: a.retryAfter })
      return a
    }
  } as unknown as RpcClient
  return { rpc, sent }
}

describe('Reporter', () => {
  it('sends the spec 1 fields with the session token and the breadcrumb ring', async () => {
    const { rpc, sent } = fakeRpc(() => ({ v: 1, ok: true }))
    const r = new Reporter({ now: () => 1000, rpc: () => rpc, token: () => 'tok', peers: () => 3 })
    for (let i = 0; i < 60; i++) r.note('status', `feed:open ${i}`)
    r.note('error', 'x'.repeat(500) + '\u0007')
    expect(await r.report({ channel: 'news', category: 'black-screen', text: 'bad\u0000 picture', appVersion: '1.2', platform: 'tv' })).toEqual({ status: 'sent' })
    const v = sent[0]?.value
    expect(sent[0]?.method).toBe('report')
    expect(v).toMatchObject({ v: 1, token: 'tok', category: 'black-screen', text: 'bad picture', channel: 'news', appVersion: '1.2', platform: 'tv', peers: 3 })
    expect(v.events).toHaveLength(50)
    expect(Buffer.byteLength(v.events.at(-1).detail)).toBeLessThanOrEqual(200)
    expect(v.events.at(-1)).toMatchObject({ kind: 'error', at: 1000 })
  })

  it('maps collapsed, locked, unknown method and in-band errors', async () => {
    const answers: unknown[] = [{ v: 1, ok: true, collapsed: true }, { v: 1, error: 'locked', retryAfter: 30 }, new RpcError('RPC_UNKNOWN_METHOD', 'unknown method'), { v: 1, error: 'unauthorized' }]
    const { rpc } = fakeRpc(() => answers.shift())
    const r = new Reporter({ now: () => 0, rpc: () => rpc, token: () => 'tok', peers: () => 0 })
    expect(await r.report({ channel: 'a', category: 'other' })).toEqual({ status: 'collapsed' })
    expect(await r.report({ channel: 'b', category: 'other' })).toEqual({ status: 'locked', retryAfter: 30 })
    expect(await r.report({ channel: 'c', category: 'other' })).toEqual({ status: 'unsupported' })
    await expect(r.report({ channel: 'd', category: 'other' })).rejects.toMatchObject({ code: 'SDK_REPORT_REJECTED' })
  })

  it('needs a session and a panel link', async () => {
    const { rpc } = fakeRpc(() => ({ ok: true }))
    await expect(new Reporter({ now: () => 0, rpc: () => rpc, token: () => null, peers: () => 0 }).report({ channel: 'a', category: 'login' })).rejects.toMatchObject({ code: 'SDK_NOT_LOGGED_IN' })
    await expect(new Reporter({ now: () => 0, rpc: () => null, token: () => 't', peers: () => 0 }).report({ channel: 'a', category: 'login' })).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED' })
  })
})
