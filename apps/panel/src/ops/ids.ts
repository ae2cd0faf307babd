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
