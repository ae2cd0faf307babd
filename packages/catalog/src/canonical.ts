/**
 * Canonical JSON: object keys sorted (by UTF-16 code units) at every depth, no whitespace,
 * `undefined` object members omitted. Equal records always give equal bytes, which is what
 * lets the writer skip unchanged puts (the bee is append-only: every put costs its bytes
 * forever).
 */
export function canonicalJson (value: unknown): string {
  if (value === null || typeof value !== 'object') {
    const out = JSON.stringify(value)
    if (out === undefined) throw new TypeError(`cannot encode ${typeof value} as JSON`)
    return out
  }
  if (Array.isArray(value)) return '[' + value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',') + ']'
  const obj = value as Record<string, unknown>
  const names = Object.keys(obj).filter((k) => obj[k] !== undefined).sort()
  return '{' + names.map((k) => JSON.stringify(k) + ':' + canonicalJson(obj[k])).join(',') + '}'
}
