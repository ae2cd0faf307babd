import { readdirSync, readFileSync } from 'node:fs'

/** A process as /proc shows it: its command name and the niceness of each of its threads. */
export interface ProcessPriority {
  pid: number
  comm: string
  /** Niceness of every thread (/proc/<pid>/task/<tid>/stat field 19), in tid order. */
  threads: number[]
}

/** The fields of a /proc stat line after the command name (field 3 onwards); null when unreadable. */
function statFields (path: string): { comm: string, rest: string[] } | null {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch {
    return null // the process or thread ended meanwhile
  }
  const open = text.indexOf('(')
  const close = text.lastIndexOf(')')
  if (open < 0 || close < open) return null
  return { comm: text.slice(open + 1, close), rest: text.slice(close + 2).trim().split(' ') }
}

/**
 * The direct children of `parentPid` whose command name is in `names` (Linux /proc), with the
 * niceness of each of their threads. A child that ends while it is read is left out.
 */
export function childPriorities (parentPid: number, names: readonly string[]): ProcessPriority[] {
  const found: ProcessPriority[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    const stat = statFields(`/proc/${entry}/stat`)
    // field 4 is the parent pid: rest[1]; field 19 the niceness: rest[16]
    if (stat === null || Number(stat.rest[1]) !== parentPid || !names.includes(stat.comm)) continue
    let tids: string[]
    try {
      tids = readdirSync(`/proc/${entry}/task`).sort((a, b) => Number(a) - Number(b))
    } catch {
      continue
    }
    const threads = tids.map((tid) => statFields(`/proc/${entry}/task/${tid}/stat`)).filter((s) => s !== null).map((s) => Number(s.rest[16]))
    if (threads.length > 0) found.push({ pid: Number(entry), comm: stat.comm, threads })
  }
  return found
}
