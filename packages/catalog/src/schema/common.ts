import { z } from 'zod'
import { URL_MAX } from '../constants.js'

/** Lowercase hex of exactly `bytes` bytes (lowercase so equal keys encode to equal bytes). */
export function hexBytes (bytes: number): z.ZodString {
  return z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `must be ${bytes * 2} lowercase hex characters (${bytes} bytes)`)
}

/** Lowercase even-length hex between `min` and `max` bytes. */
export function hexRange (min: number, max: number): z.ZodString {
  return z.string().regex(new RegExp(`^(?:[0-9a-f]{2}){${min},${max}}$`), `must be lowercase hex of ${min}-${max} bytes`)
}

/** 32-byte key as 64 lowercase hex characters. */
export const Hex32 = hexBytes(32)

// eslint-disable-next-line no-control-regex
const SPACE_OR_CONTROL = /[\s\u0000-\u001f\u007f]/

export interface HttpsRules { query?: boolean; credentials?: boolean; fragment?: boolean }

/** True when `s` is an absolute https URL of at most URL_MAX characters, kept verbatim. */
export function isHttpsUrl (s: string, rules: HttpsRules = {}): boolean {
  if (s.length > URL_MAX || SPACE_OR_CONTROL.test(s) || !s.toLowerCase().startsWith('https://')) return false
  let url: URL
  try {
    url = new URL(s)
  } catch {
    return false
  }
  if (url.protocol !== 'https:' || url.hostname === '') return false
  if (rules.query === false && s.includes('?')) return false
  if (rules.fragment === false && s.includes('#')) return false
  if (rules.credentials === false && (url.username !== '' || url.password !== '')) return false
  return true
}

/** https URL, at most 2048 characters, query passes verbatim; http and other schemes rejected. */
export const HttpsUrl = z.string().refine((s) => isHttpsUrl(s), `must be an https URL of at most ${URL_MAX} characters`)

const ASSET_PATH = /^assets\/[0-9a-f]{16,128}\.(?:png|jpg|jpeg|webp|gif|svg)$/

/** Art reference: '' (cleared), `assets/<hex hash>.<png|jpg|jpeg|webp|gif|svg>` (P2P) or an https URL. */
export const ArtRef = z.string().refine(
  (s) => s === '' || ASSET_PATH.test(s) || isHttpsUrl(s),
  "must be '', assets/<hex hash>.<png|jpg|jpeg|webp|gif|svg> or an https URL (http is rejected)"
)

/** Integer sort key 0-9999 or null. */
export const Order = z.int().min(0).max(9999).nullable()

/** Non-negative safe integer (versions, counters, millisecond timestamps). */
export const NonNegInt = z.int().min(0)
