import { randomBytes } from 'node:crypto'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import { createStore, replicateOnConnection } from '@arus/swarm'
import { registerTeardown, tmpDir, withTimeout } from '@arus/testkit'
import type { Testnet, TestContextLike } from '@arus/testkit'
import { createFeedWriter, openFeedReader } from '@arus/feed'
import type { FeedReader, FeedWriter, FeedWriterInit } from '@arus/feed'

export const key32 = (): Uint8Array => new Uint8Array(randomBytes(32))

/** A Corestore on disk in its own temp dir; closed, then removed, on teardown. */
export function storeIn (t: TestContextLike): { store: Corestore; dir: string } {
  const dir = tmpDir(t, 'arus-feed-')
  const store = createStore(dir)
  registerTeardown(t, () => store.close())
  return { store, dir }
}

/** A ready writer (closed on teardown) on a fresh store unless one is given. */
export async function writerOn (t: TestContextLike, init: Partial<FeedWriterInit> = {}): Promise<FeedWriter> {
  const writer = createFeedWriter({ store: init.store ?? storeIn(t).store, encryptionKey: init.encryptionKey ?? key32(), ...init })
  registerTeardown(t, () => writer.close())
  await writer.ready()
  return writer
}

/** A ready reader (closed on teardown). */
export async function readerOn (t: TestContextLike, store: Corestore, feedKey: Uint8Array, encryptionKey: Uint8Array): Promise<FeedReader> {
  const reader = openFeedReader({ store, feedKey, encryptionKey })
  registerTeardown(t, () => reader.close())
  await reader.ready()
  return reader
}

/** A swarm on the testnet that replicates `store` on every connection. */
export function peerSwarm (net: Testnet, store: Corestore): Hyperswarm {
  const swarm = net.createSwarm()
  replicateOnConnection(swarm, store)
  return swarm
}

/** Announces `topic` from `server` (awaited), then joins it as a client from each of `clients`. */
export async function link (topic: Uint8Array, server: Hyperswarm, ...clients: Hyperswarm[]): Promise<void> {
  await withTimeout(server.join(topic, { server: true, client: false }).flushed(), 15_000, 'server announce')
  for (const client of clients) client.join(topic, { server: false, client: true })
}

/** A media playlist listing `seg<N>.ts` for each N. */
export function playlistOf (sequences: number[], opts: { endList?: boolean; duration?: number } = {}): string {
  const duration = opts.duration ?? 1
  const lines = ['#EXTM3U', '#EXT-X-VERSION:3', `#EXT-X-TARGETDURATION:${Math.ceil(duration)}`, `#EXT-X-MEDIA-SEQUENCE:${sequences[0] ?? 0}`]
  for (const n of sequences) lines.push(`#EXTINF:${duration.toFixed(6)},`, `seg${n}.ts`)
  if (opts.endList === true) lines.push('#EXT-X-ENDLIST')
  return lines.join('\n') + '\n'
}

/** Segment bytes that differ per sequence number. */
export function segmentBytes (sequence: number, size = 20_000): Uint8Array {
  const bytes = new Uint8Array(randomBytes(size))
  new DataView(bytes.buffer).setUint32(0, sequence)
  return bytes
}

/** Reads a stream to the end (or its error). */
export async function collect (stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of stream) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

/** Sum of the blocks allocated (stat.blocks * 512) to every file under `dir`, per file too. */
export function allocatedBytes (dir: string): { total: number; files: Record<string, number> } {
  const files: Record<string, number> = {}
  let total = 0
  const walk = (d: string): void => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const path = join(d, entry.name)
      if (entry.isDirectory()) { walk(path); continue }
      const bytes = statSync(path).blocks * 512
      files[path.slice(dir.length + 1)] = bytes
      total += bytes
    }
  }
  walk(dir)
  return { total, files }
}

/** How many of `core`'s blocks [0, length) are stored locally. */
export async function storedBlocks (core: { length: number; has(start: number, end?: number): Promise<boolean> }): Promise<number> {
  let n = 0
  for (let i = 0; i < core.length; i++) if (await core.has(i)) n++
  return n
}

/** Resolves with the rejection of `promise` (fails if it resolves). */
export async function rejection (promise: Promise<unknown>): Promise<Error & { code?: string }> {
  try {
    await promise
  } catch (err) {
    return err as Error & { code?: string }
  }
  throw new Error('expected a rejection')
}
