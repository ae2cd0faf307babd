import { z } from 'zod'
import { StreamId, Username } from '@arus/catalog'
import { PanelError } from '../errors.js'

/** Identifier checks shared by every operation (a leaf: imports no other op). */

export function parseStreamId (value: string): string {
  const r = StreamId.safeParse(value)
  if (!r.success) throw PanelError.invalid(`invalid stream id "${String(value).slice(0, 80)}": 1-64 letters, digits, _ . -`)
  return r.data
}

export function parseUsername (value: string): string {
  const r = Username.safeParse(value)
  if (!r.success) throw PanelError.invalid(`invalid username "${value.slice(0, 64)}": 1-64 letters, digits, _ . - @`)
  return r.data
}

// --- field schemas shared by the operations' schemas ---

export const Hex32 = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hex characters (32 bytes)')
export const Order = z.int().min(0).max(9999).nullable().describe('Rail sort key 0-9999, or null (unordered)')
export const Password = z.string().min(1).max(1024)
export const Label = z.string().min(1).max(64)
