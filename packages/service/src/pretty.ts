/**
 * A small human formatter for pino's JSON lines, used when LOG_FORMAT is not
 * `json`: `HH:MM:SS level name: msg key=value ...`. It reads the lines pino
 * has already serialized, so redaction has happened before it sees them.
 */

/** Anything pino can write a line to. */
export interface LineSink {
  write: (line: string) => unknown
}

const LEVELS: Record<number, string> = { 10: 'trace', 20: 'debug', 30: 'info', 40: 'warn', 50: 'error', 60: 'fatal' }
const HIDDEN = new Set(['time', 'level', 'name', 'msg', 'pid', 'hostname', 'v'])

const pad2 = (n: number): string => String(n).padStart(2, '0')

function clock (time: unknown): string {
  const d = typeof time === 'number' || typeof time === 'string' ? new Date(time) : new Date()
  const t = Number.isNaN(d.getTime()) ? new Date() : d
  return `${pad2(t.getHours())}:${pad2(t.getMinutes())}:${pad2(t.getSeconds())}`
}

function showValue (value: unknown): string {
  if (typeof value === 'string') return /^[^\s"=]+$/.test(value) ? value : JSON.stringify(value)
  return JSON.stringify(value) ?? String(value)
}

/** Formats one parsed pino record as a human line (with an indented stack for `err`). */
export function formatPretty (record: Record<string, unknown>): string {
  const level = typeof record.level === 'number' ? (LEVELS[record.level] ?? String(record.level)) : String(record.level)
  let line = `${clock(record.time)} ${level.padEnd(5)}`
  if (typeof record.name === 'string') line += ` ${record.name}:`
  if (record.msg !== undefined) line += ` ${String(record.msg)}`
  let stack = ''
  for (const [k, v] of Object.entries(record)) {
    if (HIDDEN.has(k) || v === undefined) continue
    if (k === 'err' && typeof v === 'object' && v !== null) {
      const err = v as { type?: unknown, message?: unknown, code?: unknown, stack?: unknown }
      line += ` err=${showValue(`${String(err.type ?? 'Error')}: ${String(err.message ?? '')}`)}`
      if (err.code !== undefined) line += ` code=${showValue(err.code)}`
      if (typeof err.stack === 'string') stack = '\n' + err.stack.split('\n').slice(1).map((s) => `    ${s.trim()}`).join('\n')
      continue
    }
    line += ` ${k}=${showValue(v)}`
  }
  return line + stack + '\n'
}

/**
 * A pino destination that rewrites each JSON line with `formatPretty` and
 * writes it to `out`. Lines that are not JSON pass through unchanged.
 */
export function createPrettyStream (out: LineSink): LineSink {
  let pending = ''
  return {
    write (chunk: string) {
      pending += chunk
      let nl = pending.indexOf('\n')
      while (nl !== -1) {
        const line = pending.slice(0, nl)
        pending = pending.slice(nl + 1)
        if (line !== '') out.write(reformat(line))
        nl = pending.indexOf('\n')
      }
      return true
    }
  }
}

function reformat (line: string): string {
  try {
    const record: unknown = JSON.parse(line)
    if (typeof record === 'object' && record !== null && !Array.isArray(record)) return formatPretty(record as Record<string, unknown>)
  } catch {
    // not JSON: fall through
  }
  return line + '\n'
}
