import type Corestore from 'corestore'
import Hyperdrive from 'hyperdrive'
import type Hyperswarm from 'hyperswarm'
import { fromHex, toHex } from '@arus/crypto'
import type { PanelContext } from './context.js'

/**
 * Fills a record's blobsKey after a register (spec 1 "Catalog record": blobsKey is
 * filled asynchronously and refilled when feedKey rotates). The panel opens the feed
 * drive with the stream key, reads its header from the broadcaster, and records the
 * blob core's key so keyless mirrors can copy ciphertext. Bounded: a few attempts,
 * each with a timeout; a later register schedules it again.
 */
export interface BlobsFiller { schedule(streamId: string, feedKey: string): void; close(): Promise<void> }

export interface BlobsFillerInit { attemptTimeoutMs?: number; attempts?: number }

export function createBlobsFiller (ctx: PanelContext, store: Corestore, swarm: Hyperswarm, init: BlobsFillerInit = {}): BlobsFiller {
  const attemptTimeoutMs = init.attemptTimeoutMs ?? 20_000
  const attempts = init.attempts ?? 3
  const pending = new Map<string, Promise<void>>()
  let closed = false
  // Resolves at close(), so a lookup waiting on the network ends at once.
  let abort!: () => void
  const aborted = new Promise<null>((resolve) => { abort = () => resolve(null) })

  async function resolveBlobsKey (feedKey: string, encKey: string): Promise<string | null> {
    const drive = new Hyperdrive(store.session(), fromHex(feedKey, 32), { encryptionKey: fromHex(encKey, 32) })
    let timer: NodeJS.Timeout | undefined
    const discovery = swarm.join(drive.discoveryKey, { server: false, client: true })
    try {
      await drive.ready()
      const blobs = await Promise.race([
        drive.getBlobs(),
        aborted,
        new Promise<null>((resolve) => { timer = setTimeout(() => resolve(null), attemptTimeoutMs) })
      ])
      return blobs?.core.key ? toHex(blobs.core.key) : null
    } finally {
      clearTimeout(timer)
      await discovery.destroy().catch(() => {})
      await drive.close().catch(() => {})
    }
  }

  async function fill (streamId: string, feedKey: string): Promise<void> {
    for (let i = 0; i < attempts && !closed; i++) {
      const key = await ctx.registries.streamKeys.get(streamId)
      const record = await ctx.catalog.getStream(streamId)
      if (!key || !record || record.feedKey !== feedKey || record.blobsKey) return
      const blobsKey = await resolveBlobsKey(feedKey, key).catch((err: Error) => {
        ctx.log.warn({ event: 'blobs.error', streamId, err: err.message }, 'blobsKey lookup failed')
        return null
      })
      if (closed) return
      if (blobsKey) {
        await ctx.catalog.updateStream(streamId, (r) => (r && r.feedKey === feedKey && r.blobsKey !== blobsKey ? { ...r, blobsKey } : undefined))
        ctx.log.info({ event: 'blobs.filled', streamId }, 'blobsKey filled')
        return
      }
    }
  }

  return {
    schedule (streamId, feedKey) {
      const id = `${streamId}:${feedKey}`
      if (closed || pending.has(id)) return
      const job = fill(streamId, feedKey)
        .catch((err: Error) => ctx.log.warn({ event: 'blobs.error', streamId, err: err.message }, 'blobsKey fill failed'))
        .finally(() => pending.delete(id))
      pending.set(id, job)
    },
    async close () {
      closed = true
      abort()
      await Promise.allSettled([...pending.values()])
    }
  }
}
