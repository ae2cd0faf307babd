import { z } from 'zod'
import { blake2b256, toHex } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { purgeUnusedArt } from './assets.js'
import { parseStreamId } from './ids.js'
import { setMeta } from './stream-meta.js'
import { StreamView } from './streams.js'

/** Art lives content-addressed in the assets drive: `assets/<blake2b-256 hex>.<ext>`. */

export const ART_KINDS = ['poster', 'backdrop', 'logo'] as const
export type ArtKind = typeof ART_KINDS[number]
export const ART_EXTENSIONS = ['png', 'jpg', 'jpeg', 'webp', 'gif', 'svg'] as const
/** Same cap as the tool server's art upload (spec 2 Limits). */
export const MAX_ART_BYTES = 10 * 1024 * 1024

export async function uploadArt (ctx: PanelCore, streamId: string, kind: string, bytes: Uint8Array, ext: string): Promise<{ path: string }> {
  const id = parseStreamId(streamId)
  if (!(ART_KINDS as readonly string[]).includes(kind)) throw PanelError.invalid('art kind must be poster, backdrop or logo')
  const e = ext.toLowerCase().replace(/^\./, '')
  if (!(ART_EXTENSIONS as readonly string[]).includes(e)) throw PanelError.invalid(`art extension must be one of ${ART_EXTENSIONS.join(', ')}`)
  if (bytes.byteLength === 0 || bytes.byteLength > MAX_ART_BYTES) throw PanelError.invalid('art must be 1 byte to 10 MiB')
  if (!(await ctx.catalog.getStream(id))) throw PanelError.notFound(`stream "${id}"`)
  const path = `assets/${toHex(blake2b256(bytes))}.${e}`
  if (!(await ctx.assets.entry('/' + path))) await ctx.assets.put('/' + path, bytes)
  const before = await ctx.catalog.getStream(id)
  const old = before?.[kind as ArtKind]
  await setMeta(ctx, id, { [kind]: path })
  if (old && old !== path) await purgeUnusedArt(ctx, [old])
  ctx.activity.record({ event: 'art.uploaded', streamId: id, kind }, 'art uploaded')
  return { path }
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const ArtReply = z.object({ path: z.string().describe('assets/<hash>.<ext>'), stream: StreamView })
