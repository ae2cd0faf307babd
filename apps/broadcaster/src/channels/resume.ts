import type { Logger } from '@arus/service'
import { sleep } from '../util.js'
import type { ChannelManager } from './manager.js'

/**
 * Boot resume (spec 2 "Broadcaster facts": on boot it resumes every desired-running
 * channel). Paced by default (RESUME_PACE) so a box with many channels does not spawn every
 * ffmpeg and register every feed at once; isLive then flips in waves.
 */

export interface ResumeStatus { resuming: boolean; resumed: number; total: number; failed: number; resumeSec: number | null }

export interface Resume { status(): ResumeStatus; done: Promise<void>; cancel(): void }

export function startResume (manager: ChannelManager, log: Logger, init: { paceMs: number }): Resume {
  const ids = manager.list().filter((c) => c.desiredRunning).map((c) => c.id)
  const abort = new AbortController()
  const started = Date.now()
  let resumed = 0
  let failed = 0
  let finishedAt: number | null = null

  const one = async (id: string) => {
    try {
      await manager.start(id)
      resumed++
    } catch (err) {
      failed++
      log.error({ event: 'resume.failed', channel: id, err: (err as Error).message }, 'resume of a channel failed')
    }
  }
  const run = async () => {
    if (init.paceMs <= 0) {
      await Promise.all(ids.map(one))
    } else {
      for (const [i, id] of ids.entries()) {
        if (abort.signal.aborted) break
        if (i > 0) await sleep(init.paceMs, abort.signal)
        if (abort.signal.aborted) break
        await one(id)
      }
    }
    finishedAt = Date.now()
    if (ids.length > 0) log.info({ event: 'resume.done', resumed, failed, total: ids.length, ms: finishedAt - started }, 'boot resume finished')
  }
  const done = run()
  return {
    status: () => ({
      resuming: finishedAt === null,
      resumed,
      total: ids.length,
      failed,
      resumeSec: finishedAt === null ? null : Math.round((finishedAt - started) / 100) / 10
    }),
    done,
    cancel: () => abort.abort()
  }
}
