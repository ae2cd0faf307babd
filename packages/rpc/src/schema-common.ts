import { z } from 'zod'
import { PROTOCOL_VERSION } from './constants.js'

/** Lowercase hex of exactly `bytes` bytes. */
export function hexBytes (bytes: number): z.ZodString {
  return z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`), `expected lowercase hex of ${bytes} bytes`)
}

/** 32 bytes as 64 lowercase hex characters (keys, challenges, group elements). */
export const Hex32 = hexBytes(32)
/** 64 bytes as 128 lowercase hex characters (Ed25519 signatures). */
export const Hex64 = hexBytes(64)

/** The `v` field every request and reply carries. */
export const Version = z.literal(PROTOCOL_VERSION)

/**
 * A string of `min`–`max` UTF-16 units with no lone surrogate, so it has one
 * UTF-8 form wherever it is stored or signed.
 */
export function text (min: number, max: number): z.ZodString {
  return z.string().min(min).max(max).refine(isWellFormedText, 'contains a lone surrogate')
}

/** A username as the RPC carries it: 1–64 characters (the panel applies its own rules). */
export const Username = text(1, 64)

/** Whole, non-negative, safe integer. */
export const Count = z.number().int().min(0)

/** Milliseconds since the Unix epoch. */
export const EpochMs = z.number().int().min(0)

// A lone UTF-16 surrogate has no UTF-8 form; rejecting it keeps "the UTF-8 bytes
// of this string" a single, unambiguous byte sequence for signatures.
const LONE_SURROGATE = /\p{Surrogate}/u

/** True when `text` has no lone surrogate. */
export function isWellFormedText (text: string): boolean {
  return !LONE_SURROGATE.test(text)
}
