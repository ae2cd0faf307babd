import { CryptoError } from './errors.js'

// UTF-8 and base64url written out here rather than using TextEncoder/Buffer: the package is
// bundled into the viewer SDK, and the Bare runtime has neither.

/** UTF-8 bytes of `str`; a lone surrogate is refused (two strings must never share bytes). */
export function utf8Encode (str: string, name = 'string'): Uint8Array {
  const out: number[] = []
  for (let i = 0; i < str.length; i++) {
    let c = str.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = str.charCodeAt(i + 1)
      if (c > 0xdbff || !(next >= 0xdc00 && next <= 0xdfff)) {
        throw CryptoError.badInput(name, 'contains a lone UTF-16 surrogate')
      }
      c = 0x10000 + ((c - 0xd800) << 10) + (next - 0xdc00)
      i++
    }
    if (c < 0x80) out.push(c)
    else if (c < 0x800) out.push(0xc0 | (c >> 6), 0x80 | (c & 63))
    else if (c < 0x10000) out.push(0xe0 | (c >> 12), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
    else out.push(0xf0 | (c >> 18), 0x80 | ((c >> 12) & 63), 0x80 | ((c >> 6) & 63), 0x80 | (c & 63))
  }
  return Uint8Array.from(out)
}

/** Strict UTF-8 decode: overlong forms, surrogates and code points past U+10FFFF throw. */
export function utf8Decode (bytes: Uint8Array, name = 'bytes'): string {
  const bad = (): CryptoError => CryptoError.badInput(name, 'is not valid UTF-8')
  const units: number[] = []
  let out = ''
  for (let i = 0; i < bytes.length;) {
    const b0 = bytes[i] as number
    // Lead byte: number of continuation bytes, its payload bits, and the smallest code point
    // that needs this many bytes (anything smaller is an overlong form).
    let need = 0
    let cp = b0
    let min = 0
    if (b0 >= 0xc2 && b0 <= 0xdf) [need, cp, min] = [1, b0 & 31, 0x80]
    else if (b0 >= 0xe0 && b0 <= 0xef) [need, cp, min] = [2, b0 & 15, 0x800]
    else if (b0 >= 0xf0 && b0 <= 0xf4) [need, cp, min] = [3, b0 & 7, 0x10000]
    else if (b0 >= 0x80) throw bad()
    for (let k = 1; k <= need; k++) {
      const b = bytes[i + k]
      if (b === undefined || (b & 0xc0) !== 0x80) throw bad()
      cp = (cp << 6) | (b & 63)
    }
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) throw bad()
    if (cp >= 0x10000) {
      const v = cp - 0x10000
      units.push(0xd800 + (v >> 10), 0xdc00 + (v & 1023))
    } else {
      units.push(cp)
    }
    if (units.length > 4096) {
      out += String.fromCharCode(...units)
      units.length = 0
    }
    i += need + 1
  }
  return out + String.fromCharCode(...units)
}

const B64URL = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'
const B64URL_INDEX = new Int16Array(128).fill(-1)
for (let i = 0; i < B64URL.length; i++) B64URL_INDEX[B64URL.charCodeAt(i)] = i

/** base64url without padding (RFC 4648 §5). */
export function base64urlEncode (bytes: Uint8Array): string {
  let out = ''
  let i = 0
  for (; i + 2 < bytes.length; i += 3) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8) | (bytes[i + 2] as number)
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]! + B64URL[n & 63]!
  }
  const rest = bytes.length - i
  if (rest === 1) {
    const n = (bytes[i] as number) << 16
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]!
  } else if (rest === 2) {
    const n = ((bytes[i] as number) << 16) | ((bytes[i + 1] as number) << 8)
    out += B64URL[n >> 18]! + B64URL[(n >> 12) & 63]! + B64URL[(n >> 6) & 63]!
  }
  return out
}

/**
 * Strict base64url decode: no padding, no other characters, and unused trailing bits must
 * be zero, so every byte string has exactly one accepted encoding. Returns null otherwise.
 */
export function base64urlDecode (str: string): Uint8Array | null {
  if (str.length % 4 === 1) return null
  const out = new Uint8Array(Math.floor((str.length * 3) / 4))
  let acc = 0
  let bits = 0
  let o = 0
  for (let i = 0; i < str.length; i++) {
    const code = str.charCodeAt(i)
    const v = code < 128 ? (B64URL_INDEX[code] as number) : -1
    if (v < 0) return null
    acc = ((acc << 6) | v) & 0xffffff
    bits += 6
    if (bits >= 8) {
      bits -= 8
      out[o++] = (acc >> bits) & 0xff
    }
  }
  if ((acc & ((1 << bits) - 1)) !== 0) return null
  return out
}
