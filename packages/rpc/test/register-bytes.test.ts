import { generateKeyPairSync, sign, verify } from 'node:crypto'
import { describe, expect, it, onTestFinished } from 'vitest'
import {
  createRpcClient, createRpcResponder, encodeRegisterPayload, MAX_REGISTER_PAYLOAD_BYTES, parseRegisterPayload,
  registerSignedBytes, RpcError
} from '@arus/rpc'
import { createSwarmPair, hexOf } from './helpers.js'

// The test signs with Node's own Ed25519 (the package does no cryptography);
// what matters is that the panel receives exactly the bytes that were signed.
const { publicKey, privateKey } = generateKeyPairSync('ed25519')
const signHex = (bytes: Uint8Array): string => sign(null, bytes, privateKey).toString('hex')

const base = { streamId: 'kanal_7.hd-1', feedKey: hexOf(32, 0x12), key: hexOf(32, 0x34), ts: 1_800_000_000_123 }

describe('register payload travels as the exact signed bytes', () => {
  it('the handler receives byte-identical text and the signature verifies over it', async () => {
    const pair = await createSwarmPair()
    onTestFinished(() => pair.destroy())
    const received: string[] = []
    createRpcResponder(pair.serverConn, {
      register (req) {
        received.push(req.payload)
        const ok = verify(null, registerSignedBytes(req.payload), publicKey, Buffer.from(req.sig, 'hex'))
        return ok ? { ok: true, changed: true } : { error: 'unauthorized' }
      }
    })
    const client = createRpcClient(pair.clientConn)

    // Non-ASCII text, escapes and a hand-formatted payload (spaces, key order
    // unlike the schema's): any re-serialization on the way would break these.
    const payloads = [
      encodeRegisterPayload({ ...base, title: 'Café ☕ Kanal 🎬', description: 'line1\nline2 "quoted" \\ back', category: ['Nachrichten', 'ニュース'] }),
      encodeRegisterPayload({ ...base, type: 'vod', durationSec: 5400.5, status: 'available', feedKey: null }),
      `{ "ts": 1800000000123,  "key": "${hexOf(32, 0x34)}", "feedKey": null, "streamId": "x", "v": 1, "title": "\\u00e9t\\u00e9" }`
    ]
    for (const payload of payloads) {
      const signed = registerSignedBytes(payload)
      expect(await client.register({ payload, sig: signHex(signed) })).toEqual({ v: 1, ok: true, changed: true })
      expect(Buffer.from(registerSignedBytes(received.at(-1) ?? '')).equals(Buffer.from(signed))).toBe(true)
    }
    expect(received).toEqual(payloads)

    const tampered = payloads[0]?.replace('Kanal', 'Kanal ') ?? ''
    const err = await client.register({ payload: tampered, sig: signHex(registerSignedBytes(payloads[0] ?? '')) }).catch((e: unknown) => e)
    expect(err).toMatchObject({ code: 'RPC_REMOTE_ERROR', reason: 'unauthorized' })
  })
})

describe('encodeRegisterPayload / parseRegisterPayload', () => {
  it('fills v and type, and parses back to the same object', () => {
    const text = encodeRegisterPayload(base)
    expect(JSON.parse(text)).toEqual({ v: 1, type: 'live', ...base })
    const parsed = parseRegisterPayload(text)
    expect(parsed).toEqual({ ok: true, value: { v: 1, type: 'live', ...base } })
  })

  it('rejects invalid payloads with a coded error or a detail, never throwing from parse', () => {
    const bad: unknown[] = [
      { ...base, streamId: 'a/b' }, { ...base, feedKey: 'AB'.repeat(32) }, { ...base, durationSec: 3 },
      { ...base, type: 'vod', isLive: false }, { ...base, category: Array(17).fill('c') }, { ...base, extra: 1 },
      { ...base, key: undefined }, { ...base, title: 'x\ud800' }, { ...base, ts: -5 }, { ...base, publisher: '' }
    ]
    for (const obj of bad) {
      expect(() => encodeRegisterPayload(obj as never)).toThrow(expect.objectContaining({ code: 'RPC_INVALID_ARGUMENT' }))
      const parsed = parseRegisterPayload(JSON.stringify({ v: 1, ...(obj as object) }))
      expect(parsed.ok).toBe(false)
    }
    for (const text of [42, null, '', 'nope', '[]', 'null', '{"v":2}', `{"v":1,"t":"${'x'.repeat(MAX_REGISTER_PAYLOAD_BYTES)}"}`, '{"title":"\ud800"}']) {
      const parsed = parseRegisterPayload(text)
      expect(parsed.ok).toBe(false)
      if (!parsed.ok) expect(parsed.detail.length).toBeLessThanOrEqual(200)
    }
  })

  it('refuses a payload whose text exceeds 16 KiB', () => {
    const err = (() => {
      try { encodeRegisterPayload({ ...base, description: 'é'.repeat(4000), category: Array(16).fill('ü'.repeat(64)), title: '€'.repeat(200) }) } catch (e) { return e }
      return null
    })()
    // 4000×2 + 16×64×2 + 200×3 bytes of text is under the cap: this must pass
    expect(err).toBeNull()
    // each control character serializes as a 6-byte \u00XX escape: 24 000 bytes
    const big = { ...base, description: '\u0001'.repeat(4000) }
    expect(() => encodeRegisterPayload(big)).toThrow(RpcError)
  })
})
