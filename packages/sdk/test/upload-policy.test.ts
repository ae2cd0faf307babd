import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { UploadPolicyEvent } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { announcedOn } from './helpers/dht.js'
import { decode } from './helpers/ffmpeg.js'
import { blake2b256 } from '@arus/crypto'
import { startBroadcaster, type Broadcaster } from './helpers/broadcaster.js'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// uploadPolicy (spec 3): 'reseed' announces feed topics so viewers fetch blocks from each other;
// 'client-only' joins unannounced. Bytes are counted per peer on the feed's cores. A panel
// process and broadcaster processes running ffmpeg on a local testnet.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** A started `test` channel, granted to alice; resolves its DHT topic (hypercore discovery key). */
async function channel (bc: Broadcaster, id: string, extra: Record<string, unknown> = {}): Promise<Uint8Array> {
  const feedKey = await bc.channel(id, extra)
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  return blake2b256(Buffer.from('hypercore'), Buffer.from(feedKey, 'hex'))
}

describe('upload policy', () => {
  it('reseed: a second viewer receives blocks from the first', async (t) => {
    const bc = await startBroadcaster(t, stack)
    // 4 s segments: the feed changes rarely, so the first viewer can be fully caught up below.
    const topic = await channel(bc, 'shared', { hlsTime: 4, hlsListSize: 3 })
    const first = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await connectAndLogin(first, 'alice', 'alice-pw')
    const { url } = await first.resolve('shared')
    expect((await decode(url, 2)).code).toBe(0)
    const firstKey = first.diagnostics().publicKey as string
    await waitFor(async () => (await announcedOn(stack.testnet, topic)).has(firstKey), { timeoutMs: 20_000, message: 'first viewer announced' })
    // The first viewer holds the whole current window: its playlist and every segment listed.
    await waitFor(async () => {
      const before = await (await fetch(url)).text()
      for (const seg of before.split('\n').filter((l) => l.endsWith('.ts'))) await (await fetch(url.replace('index.m3u8', seg))).arrayBuffer()
      return (await (await fetch(url)).text()) === before
    }, { timeoutMs: 30_000, message: 'first viewer caught up' })
    // The broadcaster stops answering: whatever the second viewer gets now can only come from the first.
    bc.signal('SIGSTOP')
    const second = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await connectAndLogin(second, 'alice', 'alice-pw')
    const secondUrl = (await second.resolve('shared')).url
    const out = await decode(secondUrl, 2, 30_000, ['-live_start_index', '0'])
    expect(out.stderr).toBe('')
    expect(out.code).toBe(0)
    const got = second.diagnostics().feed?.bytesByPeer[firstKey]
    expect(got?.downloaded ?? 0).toBeGreaterThan(10_000)
    // Every byte the second viewer holds came from the first viewer or the panel (drive header).
    const sources = Object.entries(second.diagnostics().feed?.bytesByPeer ?? {}).filter(([, b]) => b.downloaded > 0).map(([k]) => k)
    expect(sources.every((k) => k === firstKey || k === stack.panelKey)).toBe(true)
    expect(first.diagnostics().feed?.bytesByPeer[second.diagnostics().publicKey as string]?.uploaded ?? 0).toBeGreaterThan(10_000)
    bc.signal('SIGCONT')
  })

  it('client-only announces nothing; the runtime switch re-joins topics and is echoed', async (t) => {
    const bc = await startBroadcaster(t, stack)
    const topic = await channel(bc, 'private')
    const quiet = newPlayer(t, stack, { uploadPolicy: 'client-only', tune: { timeoutMs: 10_000 } })
    const loud = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await Promise.all([connectAndLogin(quiet, 'alice', 'alice-pw'), connectAndLogin(loud, 'alice', 'alice-pw')])
    const [quietUrl, loudUrl] = await Promise.all([quiet.resolve('private'), loud.resolve('private')]).then((r) => r.map((x) => x.url))
    await Promise.all([decode(quietUrl as string, 2), decode(loudUrl as string, 2)])
    const quietKey = quiet.diagnostics().publicKey as string
    const loudKey = loud.diagnostics().publicKey as string
    await waitFor(async () => (await announcedOn(stack.testnet, topic)).has(loudKey), { timeoutMs: 20_000, message: 'reseeding viewer announced' })
    const found = await announcedOn(stack.testnet, topic)
    expect(found.size).toBeGreaterThanOrEqual(2) // the broadcaster and the reseeding viewer
    expect(found.has(quietKey)).toBe(false)
    expect(quiet.diagnostics().uploadPolicy).toBe('client-only')

    // Switch the reseeding viewer to client-only at runtime: it leaves the announcement.
    const echoes: UploadPolicyEvent[] = []
    loud.on('upload-policy', (e) => echoes.push(e))
    expect(await loud.setUploadPolicy('client-only')).toEqual({ policy: 'client-only', changed: true, rejoined: 1 })
    expect(echoes).toEqual([{ policy: 'client-only', rejoined: 1 }])
    await waitFor(async () => !(await announcedOn(stack.testnet, topic)).has(loudKey), { timeoutMs: 20_000, message: 'unannounced' })
    expect((await decode(loudUrl as string, 2)).code).toBe(0) // playback goes on
    expect(await loud.setUploadPolicy('client-only')).toEqual({ policy: 'client-only', changed: false, rejoined: 0 })
    expect(await quiet.setUploadPolicy('reseed')).toMatchObject({ policy: 'reseed', changed: true, rejoined: 1 })
    await waitFor(async () => (await announcedOn(stack.testnet, topic)).has(quietKey), { timeoutMs: 20_000, message: 'announced after switch' })
    await expect(quiet.setUploadPolicy('leech' as never)).rejects.toMatchObject({ code: 'SDK_INVALID_ARGUMENT' })
  })

  it('client-only serves no block even to a peer it dialed itself (issue 41: phones uploaded 0.2-0.4 x the stream in the lab)', async (t) => {
    const bc = await startBroadcaster(t, stack)
    const topic = await channel(bc, 'phone', { hlsTime: 2, hlsListSize: 4 })
    const loud = newPlayer(t, stack, { tune: { timeoutMs: 10_000 } })
    await connectAndLogin(loud, 'alice', 'alice-pw')
    const loudUrl = (await loud.resolve('phone')).url
    expect((await decode(loudUrl, 2)).code).toBe(0)
    const loudKey = loud.diagnostics().publicKey as string
    await waitFor(async () => (await announcedOn(stack.testnet, topic)).has(loudKey), { timeoutMs: 20_000, message: 'reseeding viewer announced' })
    // The phone's lookup finds the reseeding viewer and dials it: that connection replicates both ways.
    const phone = newPlayer(t, stack, { uploadPolicy: 'client-only', tune: { timeoutMs: 10_000 } })
    await connectAndLogin(phone, 'alice', 'alice-pw')
    const phoneUrl = (await phone.resolve('phone')).url
    const phoneKey = phone.diagnostics().publicKey as string
    const stop = new AbortController()
    t.onTestFinished(() => stop.abort())
    const play = async (url: string): Promise<void> => {
      while (!stop.signal.aborted) {
        try {
          const list = await (await fetch(url, { signal: stop.signal })).text()
          for (const seg of list.split('\n').filter((l) => l.endsWith('.ts'))) await (await fetch(url.replace('index.m3u8', seg), { signal: stop.signal })).arrayBuffer()
        } catch {
          // the test is over, or a held request timed out: go on
        }
        await new Promise((resolve) => setTimeout(resolve, 300))
      }
    }
    const playing = [play(loudUrl), play(phoneUrl)]
    await waitFor(() => loud.diagnostics().feed?.bytesByPeer[phoneKey] !== undefined || phone.diagnostics().feed?.bytesByPeer[loudKey] !== undefined,
      { timeoutMs: 30_000, message: 'the phone and the reseeding viewer replicate with each other' })
    // Both play on for ~12 s (six segments): the reseeding viewer serves the phone, never the reverse.
    await new Promise((resolve) => setTimeout(resolve, 12_000))
    stop.abort()
    await Promise.all(playing)
    expect(phone.diagnostics().feed?.bytesByPeer[loudKey]?.uploaded ?? 0).toBe(0)
    expect(loud.diagnostics().feed?.bytesByPeer[phoneKey]?.downloaded ?? 0).toBe(0)
  }, 90_000)
})
