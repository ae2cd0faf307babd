import { readdirSync, readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import {
  ENGINE_COMMANDS, ENGINE_MESSAGE_TYPES, ENGINE_PROTOCOL_VERSION, EngineCommand, EngineMessageSchema, INITIAL_HOST_STATE, LineDecoder, applyEngineMessage, encodeLine,
  type DroppedLine, type HostState
} from '@arus/engine-protocol'

function decoder (max?: number): { d: LineDecoder; values: unknown[]; drops: DroppedLine[] } {
  const values: unknown[] = []
  const drops: DroppedLine[] = []
  return { d: new LineDecoder((v) => values.push(v), (x) => drops.push(x), max), values, drops }
}

describe('line framing', () => {
  it('reassembles lines split anywhere, multi-byte characters included', () => {
    const { d, values, drops } = decoder()
    const bytes = new TextEncoder().encode(encodeLine({ type: 'streams', streams: [{ id: 'ß', title: 'Ünïcode 📺', type: 'live' }] }) + encodeLine({ type: 'port', v: 1, port: 1 }))
    for (let i = 0; i < bytes.length; i += 3) d.push(bytes.subarray(i, i + 3))
    expect(values).toEqual([{ type: 'streams', streams: [{ id: 'ß', title: 'Ünïcode 📺', type: 'live' }] }, { type: 'port', v: 1, port: 1 }])
    expect(drops).toEqual([])
  })

  it('drops a line that is not JSON, not an object, or over the cap, and carries on; empty lines are nothing', () => {
    const { d, values, drops } = decoder(32)
    d.push('oops\n[1]\n"s"\n\n{"a":1}\n')
    d.push('{"pad":"' + 'x'.repeat(40))
    d.push('"}\n{"b":2}\n')
    expect(values).toEqual([{ a: 1 }, { b: 2 }])
    expect(drops).toEqual([{ reason: 'not-json', bytes: 4 }, { reason: 'not-an-object', bytes: 3 }, { reason: 'not-an-object', bytes: 3 }, { reason: 'too-long', bytes: 50 }])
  })
})

describe('schemas and the host-state reduction', () => {
  it('commands are strict, messages tolerate added fields', () => {
    expect(EngineCommand.safeParse({ cmd: 'login', username: 'a', password: 'b' }).success).toBe(true)
    expect(EngineCommand.safeParse({ cmd: 'login', username: 'a', password: 'b', x: 1 }).success).toBe(false)
    expect(EngineCommand.safeParse({ cmd: 'start', panelPubKey: 'zz' }).success).toBe(false)
    expect(EngineMessageSchema.safeParse({ type: 'port', v: 1, port: 5, future: true }).success).toBe(true)
    expect(EngineMessageSchema.safeParse({ type: 'port', v: 1 }).success).toBe(false)
  })

  it('activeStreamId follows the engine-confirmed playing status; feed-changed of the active stream moves feedKey and url', () => {
    const msgs = [
      { type: 'port', v: 1, port: 9 },
      { type: 'prefs', creds: { username: 'u', password: 'p' }, favorites: ['a'] },
      { type: 'streams', streams: [{ id: 'a', title: 'A', type: 'live' }, { id: 'b', title: 'B', type: 'vod' }] },
      { type: 'status', state: 'feed:open', streamId: 'a' },
      { type: 'status', state: 'playing', streamId: 'a', url: 'http://127.0.0.1:9/index.m3u8', source: 'p2p', mediaType: 'live', feedKey: 'k1' },
      { type: 'feed-changed', streamId: 'other', feedKey: 'kx', url: 'u2' },
      { type: 'feed-changed', streamId: 'a', feedKey: 'k2', url: 'http://127.0.0.1:9/index.m3u8' },
      { type: 'mystery', anything: 1 }
    ]
    const st = msgs.reduce(applyEngineMessage, INITIAL_HOST_STATE)
    expect(st).toEqual({ port: 9, streams: ['a', 'b'], url: 'http://127.0.0.1:9/index.m3u8', source: 'p2p', mediaType: 'live', activeStreamId: 'a', feedKey: 'k2', creds: { username: 'u', password: 'p' }, favorites: ['a'] })
  })
})

describe('protocol 2 and the compat rule (docs/engine-ipc.md "Protocol version")', () => {
  // What a version-1 host sent and received (ipc-fixtures/v1, recorded from the version-1
  // worklet) reads the same under version 2: the commands the engine took are still valid, the
  // ones it refused at the boundary still invalid, and the messages reduce to the same state.
  const dir = new URL('../../sdk/ipc-fixtures/v1/', import.meta.url)
  const files = readdirSync(dir).filter((f) => f.endsWith('.json'))
  it('there are version-1 fixtures', () => { expect(files.length).toBe(3) })
  for (const file of files) {
    it(`v1/${file}: a version-1 host's transcript still holds`, () => {
      const fixture = JSON.parse(readFileSync(new URL(file, dir), 'utf8')) as { protocol: number; sessions: Array<{ steps: Array<Record<string, any>>; state: HostState }> }
      expect(fixture.protocol).toBe(1)
      expect(ENGINE_PROTOCOL_VERSION).toBeGreaterThan(1)
      for (const session of fixture.sessions) {
        const refusedIds = new Set(session.steps.filter((s) => 'receive' in s && ['SDK_ENGINE_BAD_LINE', 'SDK_ENGINE_UNKNOWN_COMMAND'].includes(s.receive.code)).map((s) => s.receive.id))
        let state = INITIAL_HOST_STATE
        for (const step of session.steps) {
          if ('send' in step) expect(EngineCommand.safeParse(step.send).success, JSON.stringify(step.send)).toBe(!(step.send.id !== undefined && refusedIds.has(step.send.id)))
          if ('receive' in step) {
            const parsed = EngineMessageSchema.safeParse(step.receive)
            expect(parsed.success, JSON.stringify(step.receive).slice(0, 200)).toBe(true)
            state = applyEngineMessage(state, parsed.data!)
          }
        }
        expect(state).toEqual(session.state)
      }
    })
  }
})

describe('docs/engine-ipc.md', () => {
  it('states this version and has a row for every command and message type', () => {
    const doc = readFileSync(new URL('../../../docs/engine-ipc.md', import.meta.url), 'utf8')
    expect(doc).toContain(`# The engine IPC protocol (version ${ENGINE_PROTOCOL_VERSION})`)
    const rows = (header: string): Set<string> => {
      const table = doc.slice(doc.indexOf(header) + header.length).split('\n\n')[0]!
      return new Set([...table.matchAll(/^\| `([^`]+)`/gm)].map((m) => m[1]!))
    }
    expect(rows('| `cmd` |')).toEqual(new Set(ENGINE_COMMANDS))
    const messages = rows('| `type` |')
    for (const type of ENGINE_MESSAGE_TYPES) expect(messages.has(type) || doc.includes(`| \`fallback\`, \`${type}\``), type).toBe(true)
  })
})
