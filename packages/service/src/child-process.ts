import { spawnSync } from 'node:child_process'

/** Largest niceness Linux knows (the lowest priority). */
export const MAX_NICE = 19

const works = (prefix: readonly string[]): boolean =>
  spawnSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 5000 }).status === 0

/**
 * `setpriv --pdeathsig KILL --` when util-linux's setpriv works here: the kernel then kills
 * ffmpeg if the daemon dies without stopping it (SIGKILL, OOM), instead of leaving an orphan
 * that keeps encoding and holding its listener port. Empty elsewhere.
 */
export function dieWithParentPrefix (): string[] {
  const prefix = ['setpriv', '--pdeathsig', 'KILL', '--']
  return works(prefix) ? prefix : []
}

/**
 * `nice -n <niceness> --` when `niceness` is above 0 and coreutils' nice works here. The command
 * and every thread it starts then run at that lower priority: whatever runs at the default
 * priority on the box (a daemon's request paths) gets a busy core first, and the command still
 * gets every cycle nobody else wants. Empty for 0, or where nice is missing.
 */
export function nicePrefix (niceness: number): string[] {
  if (!Number.isInteger(niceness) || niceness < 0 || niceness > MAX_NICE) throw new RangeError(`niceness must be an integer from 0 to ${MAX_NICE}`)
  if (niceness === 0) return []
  const prefix = ['nice', '-n', String(niceness), '--']
  return works(prefix) ? prefix : []
}

/**
 * The prefix every long-running child a daemon supervises gets (ffmpeg): {@link nicePrefix} of
 * `niceness`, then {@link dieWithParentPrefix}. Each execs the next in place, so the child keeps
 * one pid and the daemon stays its parent.
 */
export function childPrefix (niceness: number): string[] {
  return [...nicePrefix(niceness), ...dieWithParentPrefix()]
}
