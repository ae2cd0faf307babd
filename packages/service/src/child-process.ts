import { spawnSync } from 'node:child_process'

/**
 * `setpriv --pdeathsig KILL --` when util-linux's setpriv works here: the kernel then kills
 * ffmpeg if the daemon dies without stopping it (SIGKILL, OOM), instead of leaving an orphan
 * that keeps encoding and holding its listener port. Empty elsewhere.
 */
export function dieWithParentPrefix (): string[] {
  const prefix = ['setpriv', '--pdeathsig', 'KILL', '--']
  const probe = spawnSync(prefix[0]!, [...prefix.slice(1), 'true'], { stdio: 'ignore', timeout: 5000 })
  return probe.status === 0 ? prefix : []
}
