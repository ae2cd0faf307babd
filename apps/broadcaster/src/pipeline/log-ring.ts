/**
 * A channel's recent log lines (spec 2 "GET /api/channels/:id/logs": at most 400 lines;
 * an operator start clears the ring, watchdog respawns do not).
 */
export const LOG_RING_LINES = 400
const MAX_LINE = 2000

export interface LogLine { t: number; line: string }

export interface LogRing {
  push(line: string): void
  /** The last `n` lines (default and maximum {@link LOG_RING_LINES}), oldest first. */
  lines(n?: number): LogLine[]
  clear(): void
}

export function createLogRing (now: () => number = Date.now, size = LOG_RING_LINES): LogRing {
  let buf: LogLine[] = []
  return {
    push (line) {
      buf.push({ t: now(), line: line.length > MAX_LINE ? `${line.slice(0, MAX_LINE)}…` : line })
      if (buf.length > size) buf = buf.slice(buf.length - size)
    },
    lines (n = size) {
      const count = Math.max(0, Math.min(size, Math.floor(n)))
      return count === 0 ? [] : buf.slice(-count)
    },
    clear () { buf = [] }
  }
}
