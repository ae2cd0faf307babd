/** Result shaping shared by tool groups: grant summaries and secret redaction. */

/** Grant lists longer than this are summarized in user-shaped results (spec 2 "Limits"). */
export const GRANT_SUMMARY_OVER = 12

type Json = unknown

/** Replaces grant lists over 12 ids in user-shaped objects with {count, sample} (unless full). */
export function summarizeGrants (data: Json, full: boolean): Json {
  if (full) return data
  if (Array.isArray(data)) return data.map((d) => summarizeGrants(d, false))
  if (data === null || typeof data !== 'object') return data
  const o = data as Record<string, unknown>
  const userShaped = typeof o.username === 'string' && Array.isArray(o.grants)
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(o)) {
    if (userShaped && (k === 'grants' || k === 'manualGrants') && Array.isArray(v) && v.length > GRANT_SUMMARY_OVER) out[k] = { count: v.length, sample: v.slice(0, GRANT_SUMMARY_OVER) }
    else out[k] = summarizeGrants(v, false)
  }
  return out
}

/** Keys whose values never reach a tool result (the daemons do not send them; this is the belt to their braces). */
const SECRET_KEYS = new Set(['password', 'pass', 'secretKey', 'privateKey', 'verifier', 'salt', 'token', 'botToken', 'webhookUrl', 'passphrase', 'encPriv', 'PUBLISHER_KEY'])

export function redactSecrets (data: Json): Json {
  if (Array.isArray(data)) return data.map(redactSecrets)
  if (data === null || typeof data !== 'object') return data
  return Object.fromEntries(Object.entries(data as Record<string, unknown>).filter(([k]) => !SECRET_KEYS.has(k)).map(([k, v]) => [k, redactSecrets(v)]))
}
