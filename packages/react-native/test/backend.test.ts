import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineCommand, MAX_LINE_BYTES, type EngineMessage } from '@arus/engine-protocol'
import { cleanupAll, decodeWithFfmpeg, tmpDir, waitFor, type Stack } from '@arus/testkit'
import { ArusBackend, type WorkletLike } from '../src/index.js'
import { engineStack } from '../../../test/mobile/worklet-host.js'
import { bareWorklet } from './bare-worklet.js'

// Issue 19: ArusBackend against the real engine worklet under Bare (through a stand-in for
// react-native-bare-kit's Worklet that speaks the same line protocol over stdin/stdout), the
// committed transcript fixtures replayed, and bad lines on the host side.

const ANDROID_14 = { os: 'android', apiLevel: 34, is64Bit: true }
const ctx = { onTestFinished: () => {} }
let stack: Stack
let bundle: string

beforeAll(async () => {
  ({ stack, bundle } = await engineStack(ctx))
}, 180_000)

afterAll(async () => { await cleanupAll() }, 60_000)

function backendOn (t: { onTestFinished(fn: () => unknown): void }, log: string[] = []): { backend: ArusBackend; worklet: ReturnType<typeof bareWorklet> } {
  const worklet = bareWorklet(t, bundle.slice(0, bundle.lastIndexOf('/')), log)
  return { backend: new ArusBackend({ device: ANDROID_14, createWorklet: () => worklet }), worklet }
}

const base64 = (): string => readFileSync(bundle).toString('base64')

describe('ArusBackend with the real engine worklet', () => {
  it('starts from the base64 bundle, logs in, confirms the playing channel, keeps prefs across a restart, and unsubscribes', async (t) => {
    const dataDir = tmpDir(t, 'arus-rn-data-')
    const { backend, worklet } = backendOn(t)
    const seen: EngineMessage[] = []
    const early: EngineMessage[] = []
    backend.onMessage((m) => seen.push(m))
    const offEarly = backend.onMessage((m) => early.push(m))
    await backend.start(base64(), { panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap }, dataDir })
    await waitFor(() => backend.port !== null, { timeoutMs: 30_000, message: 'port' })
    offEarly()
    const earlyCount = early.length
    backend.login('alice', 'alice-pw')
    await waitFor(() => seen.some((m) => m.type === 'status' && m.state === 'logged-in'), { timeoutMs: 60_000, message: 'logged in' })
    expect(backend.streams.map((s) => s.id)).toEqual(['news'])
    expect(backend.streams[0]).toMatchObject({ title: 'News', type: 'live' })

    backend.play('news')
    expect(backend.activeStreamId).toBeNull() // asked, not yet confirmed by the engine
    await waitFor(() => backend.activeStreamId === 'news', { timeoutMs: 60_000, message: 'engine-confirmed play' })
    expect(backend.url).toBe(`http://127.0.0.1:${backend.port}/index.m3u8`)
    expect([backend.source, backend.mediaType]).toEqual(['p2p', 'live'])
    const decoded = await decodeWithFfmpeg(backend.url!, 2, { timeoutMs: 60_000 })
    expect(decoded.code, decoded.stderr).toBe(0)

    backend.saveCredentials('alice', 'alice-pw')
    backend.toggleFavorite('news')
    await waitFor(() => backend.isFavorite('news') && backend.creds !== null, { timeoutMs: 10_000, message: 'prefs saved' })
    expect(early.length).toBe(earlyCount) // unsubscribed: nothing more arrived there
    backend.stop()
    expect(await worklet.exited).toBe(0)

    const again = backendOn(t)
    await again.backend.start(readFileSync(bundle), { panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap }, dataDir })
    await waitFor(() => again.backend.creds !== null, { timeoutMs: 30_000, message: 'prefs after restart' })
    expect(again.backend.creds).toEqual({ username: 'alice', password: 'alice-pw' })
    expect(again.backend.favorites).toEqual(['news'])
    expect(again.backend.isFavorite('news')).toBe(true)
    again.backend.stop()
    expect(await again.worklet.exited).toBe(0)
  }, 240_000)

  it('a start the engine refuses (hybrid, not a product path) leaves it able to take a corrected start', async (t) => {
    const { backend, worklet } = backendOn(t)
    const seen: EngineMessage[] = []
    backend.onMessage((m) => seen.push(m))
    const opts = { panelPubKey: stack.panel.panelKey, swarm: { bootstrap: stack.testnet!.bootstrap }, dataDir: tmpDir(t, 'arus-rn-data-') }
    // StartOptions no longer offers hybrid: only a caller around the types can still send it.
    await backend.start(base64(), { ...opts, hybrid: { cdnUrl: 'https://cdn.example/{id}.m3u8' } } as never)
    await waitFor(() => seen.some((m) => m.type === 'error'), { timeoutMs: 30_000, message: 'the refusal' })
    expect(seen.find((m) => m.type === 'error')).toMatchObject({ cmd: 'start', code: 'SDK_INVALID_OPTIONS', message: expect.stringContaining('hybrid') })
    expect(backend.port).toBeNull()
    await backend.start(base64(), opts)
    await waitFor(() => backend.port !== null, { timeoutMs: 30_000, message: 'port after the corrected start' })
    backend.login('alice', 'alice-pw')
    await waitFor(() => seen.some((m) => m.type === 'status' && m.state === 'logged-in'), { timeoutMs: 60_000, message: 'logged in' })
    expect(backend.streams.map((s) => s.id)).toEqual(['news'])
    expect(seen.filter((m) => m.type === 'error').map((m) => (m as { code: string }).code)).toEqual(['SDK_INVALID_OPTIONS'])
    // Started now: a further start() is a no-op again (one 'start' each).
    await backend.start(base64(), opts)
    backend.stop()
    expect(await worklet.exited).toBe(0)
  }, 120_000)
})

/** A worklet that records what the backend writes and lets the test play the engine's side. */
function scriptedWorklet (): WorkletLike & { written: string[]; emit(text: string | Uint8Array): void } {
  const listeners = new Set<(d: Uint8Array) => void>()
  const written: string[] = []
  return {
    written,
    emit: (text) => { for (const fn of listeners) fn(typeof text === 'string' ? new TextEncoder().encode(text) : text) },
    IPC: { on: (_e: 'data', fn: (d: Uint8Array) => void) => { listeners.add(fn) }, write: (d: Uint8Array) => { written.push(new TextDecoder().decode(d)) } },
    start: () => {},
    terminate: () => {}
  }
}

const withoutId = ({ id: _id, ...rest }: Record<string, unknown>): Record<string, unknown> => rest

/** The backend method that sends this command. */
function call (b: ArusBackend, c: Record<string, any>): void {
  switch (c.cmd) {
    case 'login': return b.login(c.username, c.password)
    case 'play': return b.play(c.streamId)
    case 'playRaw': return b.playRaw(c.feedKey, c.encKey)
    case 'reconnect': return b.reconnect()
    case 'setZapPrefetch': return b.setZapPrefetch(c.value)
    case 'setNetworkProfile': return b.setNetworkProfile(c.expensive, c.cellular)
    case 'requestPrefs': return b.requestPrefs()
    case 'saveCredentials': return b.saveCredentials(c.username, c.password)
    case 'clearCredentials': return b.clearCredentials()
    case 'toggleFavorite': return b.toggleFavorite(c.streamId)
    case 'report': { const { cmd: _c, id: _i, ...input } = c; return b.report(input as never) }
    case 'epg': return b.epg(c.epgUrl, c.epgId)
    case 'vodProvider': return b.vodProvider()
    case 'setUploadPolicy': return b.setUploadPolicy(c.policy)
    case 'prewarm': return b.prewarm(c.count)
    case 'sessionLive': return b.sessionLive()
    case 'stop': return b.stop()
    default: throw new Error(`no method for ${String(c.cmd)}`)
  }
}

describe('transcript fixtures (packages/sdk/ipc-fixtures)', () => {
  const dir = new URL('../../sdk/ipc-fixtures/', import.meta.url)
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  it('there are fixtures to replay, protocol 2 included', () => {
    expect(files.length).toBeGreaterThanOrEqual(4)
    expect(files).toContain('services.json')
  })
  for (const file of files) {
    it(`${file}: the same commands go out and the same state comes in`, async () => {
      const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { sessions: Array<{ steps: Array<Record<string, any>>; state: unknown }> }
      for (const session of fixture.sessions) {
        const w = scriptedWorklet()
        const b = new ArusBackend({ device: ANDROID_14, createWorklet: () => w, warn: () => {} })
        // The backend sends 'start' when it starts; a session recorded without one starts it quietly.
        const recordedStart = session.steps.find((s) => 'send' in s && s.send.cmd === 'start')?.send as Record<string, unknown> | undefined
        const { cmd: _c, v: _v, id: _i, ...opts } = recordedStart ?? { panelPubKey: 'a'.repeat(64) }
        await b.start(new Uint8Array([1]), opts as never)
        if (recordedStart !== undefined) expect(JSON.parse(w.written[0]!)).toEqual(withoutId(recordedStart))
        for (const step of session.steps) {
          if ('receive' in step) { w.emit(JSON.stringify(step.receive) + '\n'); continue }
          // Only what a host can send through its methods: valid commands other than start.
          if (!('send' in step) || step.send.cmd === 'start' || !EngineCommand.safeParse(step.send).success) continue
          const before = w.written.length
          call(b, step.send)
          expect(w.written.length, JSON.stringify(step.send)).toBe(before + 1)
          expect(JSON.parse(w.written[before]!)).toEqual(withoutId(step.send))
        }
        expect(b.snapshot()).toEqual(session.state)
      }
    })
  }
})

describe('bad lines from the engine', () => {
  it('are dropped with a warning (never their content); the backend carries on, and a throwing listener does not stop the others', async () => {
    const w = scriptedWorklet()
    const warnings: string[] = []
    const b = new ArusBackend({ device: ANDROID_14, createWorklet: () => w, warn: (m) => warnings.push(m) })
    const got: string[] = []
    b.onMessage(() => { throw new Error('host bug') })
    b.onMessage((m) => got.push(m.type))
    await b.start(new Uint8Array([1]), { panelPubKey: 'a'.repeat(64) })
    w.emit('not json at all\n')
    w.emit('{"type":"port","v":1}\n') // a known type with a missing field
    w.emit('{"type":"from-the-future","x":1}\n') // unknown: ignored silently
    const big = JSON.stringify({ type: 'prefs', creds: { username: 'u', password: 'planted-secret' }, favorites: ['x'.repeat(MAX_LINE_BYTES)] })
    for (let i = 0; i < big.length; i += 1 << 20) w.emit(big.slice(i, i + (1 << 20)))
    w.emit('\n{"type":"port","v":1,"port":4242}\n')
    expect(b.port).toBe(4242)
    expect(b.creds).toBeNull()
    expect(got).toEqual(['port'])
    expect(warnings.filter((m) => m.includes('dropped'))).toHaveLength(3)
    expect(warnings.some((m) => m.includes('not-json'))).toBe(true)
    expect(warnings.some((m) => m.includes('too-long'))).toBe(true)
    expect(warnings.some((m) => m.includes('listener threw'))).toBe(true)
    expect(warnings.join('\n')).not.toContain('planted-secret')
  })
})
