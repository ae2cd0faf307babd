import type { Logger } from '@arus/service'
import { sleep } from '../util.js'
import type { ChannelManager } from './manager.js'

/**
 * Boot resume (spec 2 "Broadcaster facts": on boot it resumes every desired-running
 * channel). Paced by default (RESUME_PACE) so a box with many channels does not spawn every
 * ffmpeg and register every feed at once; isLive then flips in waves.
 */

export interface ResumeStatus { resuming: boolean; resumed: number; total: number; failed: number; resumeSec: number | null }

/** The boot resume: reports 'resuming' from creation, starts channels once `start()` is called. */
export interface Resume {
  status(): ResumeStatus
  /** Starts every desired-running channel (paced); once. */
  start(): void
  /** Resolves when the resume has finished (or was cancelled); at once if it never started. */
  done(): Promise<void>
  cancel(): void
}

export function createResume (manager: ChannelManager, log: Logger, init: { paceMs: number }): Resume {
  let ids: string[] = []
  const abort = new AbortController()
  let started = 0
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
  let running: Promise<void> | null = null
  return {
    status: () => ({
      resuming: finishedAt === null,
      resumed,
      total: ids.length,
      failed,
      resumeSec: finishedAt === null ? null : Math.round((finishedAt - started) / 100) / 10
    }),
    start () {
      if (running !== null) return
      ids = manager.list().filter((c) => c.desiredRunning).map((c) => c.id)
      started = Date.now()
      running = run()
    },
    done: () => running ?? Promise.resolve(),
    cancel: () => abort.abort()
  }
}
