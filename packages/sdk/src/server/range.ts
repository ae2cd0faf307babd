/**
 * Single-range requests (RFC 9110 §14): `bytes=a-b`, `bytes=a-`, `bytes=-n`. A header that is
 * absent, malformed or asks for several ranges is answered with the whole body (200); a range
 * starting at or past the end is unsatisfiable (416).
 */
export type RangeResult =
  | { kind: 'full' }
  | { kind: 'partial'; start: number; end: number }
  | { kind: 'unsatisfiable' }

export function parseRange (header: string | string[] | undefined, size: number): RangeResult {
  if (typeof header !== 'string') return { kind: 'full' }
  const m = /^\s*bytes\s*=\s*(\d*)\s*-\s*(\d*)\s*$/i.exec(header)
  if (m === null) return { kind: 'full' }
  const [, a = '', b = ''] = m
  if (a === '' && b === '') return { kind: 'full' }
  if (a === '') {
    const n = Number(b)
    if (n === 0 || size === 0) return { kind: 'unsatisfiable' }
    return { kind: 'partial', start: Math.max(0, size - n), end: size - 1 }
  }
  const start = Number(a)
  const end = b === '' ? Number.MAX_SAFE_INTEGER : Number(b)
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || end < start) return { kind: 'full' }
  if (start >= size) return { kind: 'unsatisfiable' }
  return { kind: 'partial', start, end: Math.min(end, size - 1) }
}
