import { seededRandom } from '@arus/testkit'
import { encodeRegisterPayload, MAX_REQUEST_BYTES, type RpcErrorReason, type RpcMethod } from '@arus/rpc'
import { hexOf } from './helpers.js'

// Generators of malformed requests. Every case is invalid by construction and
// carries the error string the responder must answer with.

export interface FuzzCase {
  method: RpcMethod
  kind: string
  value: Uint8Array | string
  expect: Extract<RpcErrorReason, 'invalid-request' | 'too-large' | 'unsupported-version'>
}

type Rng = () => number

/** Deterministic PRNG (mulberry32) so a failure can be replayed from its seed. */
export const seeded: (seed: number) => Rng = seededRandom

const pick = <T>(rng: Rng, list: readonly T[]): T => list[Math.floor(rng() * list.length)] as T
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1))

export const validPayload = encodeRegisterPayload({ streamId: 'news.1', feedKey: hexOf(32, 0xcd), key: hexOf(32, 0xef), title: 'News', ts: 1_800_000_000_000 })

/** A valid request per method; the fuzzer only ever breaks them. */
export const BASES: Record<RpcMethod, Record<string, unknown>> = {
  hello: { v: 1 },
  login: { v: 1, username: 'alice', blinded: hexOf(32), powNonce: '00ff' },
  session: { v: 1, username: 'alice', deviceId: hexOf(32), label: 'tv', authSig: hexOf(64), deviceSig: hexOf(64) },
  register: { v: 1, payload: validPayload, sig: hexOf(64) }
}
const OPTIONAL = new Set(['label'])
const HEX: Record<string, number> = { blinded: 32, deviceId: 32, authSig: 64, deviceSig: 64, sig: 64 }

function deep (depth: number, leaf: unknown, array: boolean): unknown {
  let value = leaf
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value }
  return value
}

function wrongTypeValue (rng: Rng): unknown {
  return pick(rng, [0, 1, -1.5, 1e308, true, false, null, [], ['a'], {}, { v: 1 }, deep(50, 'x', false), deep(50, 1, true)])
}

// Each mutator returns JSON text (or bytes) of a request that must fail.
const mutators: Array<(rng: Rng, method: RpcMethod) => Omit<FuzzCase, 'method'>> = [
  function missing (rng, method) {
    const req = { ...BASES[method] }
    const keys = Object.keys(req).filter((k) => !OPTIONAL.has(k))
    delete req[pick(rng, keys)]
    return { kind: 'missing', value: JSON.stringify(req), expect: 'invalid-request' }
  },
  function extra (rng, method) {
    const key = pick(rng, ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'x', 'V', 'v ', '', 'k'.repeat(int(rng, 1, 3000))])
    const value = JSON.stringify(pick(rng, [{ polluted: true }, 'x', 1, null, [1], { prototype: { polluted: true } }]))
    const text = JSON.stringify(BASES[method]).slice(0, -1) + `,${JSON.stringify(key)}:${value}}`
    return { kind: 'extra', value: text, expect: 'invalid-request' }
  },
  function wrongType (rng, method) {
    const req = { ...BASES[method] }
    const keys = Object.keys(req).filter((k) => k !== 'v')
    if (keys.length === 0) return { kind: 'wrong-type-v', value: JSON.stringify({ v: pick(rng, ['1', true, null, 1.5, [], {}, [1]]) }), expect: 'invalid-request' }
    req[pick(rng, keys)] = wrongTypeValue(rng)
    return { kind: 'wrong-type', value: JSON.stringify(req), expect: 'invalid-request' }
  },
  function badVersion (rng, method) {
    const bad = rng() < 0.5
    const v = bad ? pick(rng, [0, 2, 3, -1, 1000, 2 ** 40]) : pick(rng, ['1', true, null, 1.5, [1], { v: 1 }])
    return { kind: 'version', value: JSON.stringify({ ...BASES[method], v }), expect: bad ? 'unsupported-version' : 'invalid-request' }
  },
  function badHex (rng, method) {
    const req = { ...BASES[method] }
    const keys = Object.keys(req).filter((k) => k in HEX || k === 'powNonce')
    if (keys.length === 0) return { kind: 'non-json', value: `{"v":1${'x'.repeat(int(rng, 0, 50))}`, expect: 'invalid-request' }
    const key = pick(rng, keys)
    const good = String(req[key])
    req[key] = key === 'powNonce'
      ? pick(rng, ['', '0', 'FF', '0x00', 'zz', '00'.repeat(33), 'abc', ' 00'])
      : pick(rng, [good.toUpperCase(), good.slice(1), `${good}0`, `${good}00`, `g${good.slice(1)}`, `0x${good}`, '', hexOf((HEX[key] ?? 32) - 1)])
    return { kind: 'bad-hex', value: JSON.stringify(req), expect: 'invalid-request' }
  },
  function badLength (rng, method) {
    const req = { ...BASES[method] }
    if (method === 'register') req.payload = validPayload.slice(0, -1) + `,"description":"${'d'.repeat(17 * 1024)}"}`
    else if (method === 'hello') return { kind: 'bad-length', value: JSON.stringify({ v: 1, username: 'alice' }), expect: 'invalid-request' }
    else if (method === 'session' && rng() < 0.5) req.label = 'l'.repeat(int(rng, 65, 5000))
    else req.username = pick(rng, ['', 'u'.repeat(int(rng, 65, 5000)), 'a\ud800', '\udc00'])
    return { kind: 'bad-length', value: JSON.stringify(req), expect: 'invalid-request' }
  },
  function badPayload (rng, method) {
    if (method !== 'register') return { kind: 'primitive', value: pick(rng, ['null', '0', '"x"', 'true', '[]', '[{"v":1}]', '""', '-1.5e3']), expect: 'invalid-request' }
    const p = JSON.parse(validPayload) as Record<string, unknown>
    const edits: Array<() => unknown> = [
      () => 'not json', () => '[]', () => 'null', () => JSON.stringify({ ...p, extra: 1 }),
      () => JSON.stringify({ ...p, streamId: pick(rng, ['a/b', '', 's'.repeat(65), 'ü', 'a b']) }),
      () => JSON.stringify({ ...p, feedKey: String(p.feedKey).toUpperCase() }), () => JSON.stringify({ ...p, type: 'radio' }),
      () => JSON.stringify({ ...p, durationSec: 5 }), () => JSON.stringify({ ...p, type: 'vod', isLive: true }),
      () => JSON.stringify({ ...p, category: Array.from({ length: 17 }, () => 'c') }), () => JSON.stringify({ ...p, title: 't'.repeat(201) }),
      () => JSON.stringify({ ...p, ts: pick(rng, [-1, 1.5, '1', null]) }), () => JSON.stringify({ ...p, key: undefined }),
      () => JSON.stringify({ ...p, v: 2 }), () => JSON.stringify({ ...p, title: 'a\ud800b' }), () => JSON.stringify(deep(50, p, false))
    ]
    return { kind: 'bad-payload', value: JSON.stringify({ ...BASES.register, payload: pick(rng, edits)() }), expect: 'invalid-request' }
  },
  function deepRequest (rng, method) {
    const value = rng() < 0.5 ? deep(50, BASES[method], rng() < 0.5) : { ...BASES[method], nested: deep(50, {}, false) }
    return { kind: 'deep', value: JSON.stringify(value), expect: 'invalid-request' }
  },
  function oversized (rng, method) {
    const pad = ' '.repeat(MAX_REQUEST_BYTES + 1 - JSON.stringify(BASES[method]).length + int(rng, 0, 40_000))
    return { kind: 'oversized', value: JSON.stringify(BASES[method]) + pad, expect: 'too-large' }
  },
  function nonJson (rng) {
    if (rng() < 0.5) {
      const bytes = new Uint8Array(int(rng, 1, 400)).map(() => int(rng, 0, 255))
      bytes[int(rng, 0, bytes.length - 1)] = 0xff // never valid UTF-8
      return { kind: 'bytes', value: bytes, expect: 'invalid-request' }
    }
    const text = pick(rng, ['{"v":1,}', '{v:1}', "{'v':1}", 'NaN', '{"v":1}{"v":1}', '\ufeff{"v":1}', '{"v":1\u0000}', '{"v":1', '}', 'undefined', '{"v":01}'])
    return { kind: 'non-json', value: text, expect: 'invalid-request' }
  },
  function empty () {
    return { kind: 'empty', value: new Uint8Array(0), expect: 'invalid-request' }
  }
]

/** `perMethod` generated cases for each method, plus a few 1 MB strings. */
export function generateCases (seed: number, perMethod: number): FuzzCase[] {
  const rng = seeded(seed)
  const cases: FuzzCase[] = []
  for (const method of Object.keys(BASES) as RpcMethod[]) {
    for (let i = 0; i < perMethod; i++) cases.push({ method, ...pick(rng, mutators)(rng, method) })
    for (const key of Object.keys(BASES[method])) {
      cases.push({ method, kind: 'huge-string', value: JSON.stringify({ ...BASES[method], [key]: 'h'.repeat(1024 * 1024) }), expect: 'too-large' })
    }
  }
  return cases
}
