import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'

/** The assets drive: lookup by content path and purge of files no record references. */

const ASSET_PATH = /^assets\/[0-9a-f]{64}\.(png|jpg|jpeg|webp|gif|svg)$/

export async function readArt (ctx: PanelCore, path: string): Promise<Uint8Array> {
  if (!ASSET_PATH.test(path)) throw PanelError.notFound(`asset "${path.slice(0, 100)}"`)
  const bytes = await ctx.assets.get('/' + path)
  if (!bytes) throw PanelError.notFound(`asset "${path}"`)
  return bytes
}

/** Removes drive files among `paths` that no catalog record references any more. */
export async function purgeUnusedArt (ctx: PanelCore, paths: string[]): Promise<void> {
  const candidates = new Set(paths.filter((p) => ASSET_PATH.test(p)))
  if (candidates.size === 0) return
  for (const { record } of await ctx.catalog.listStreams()) {
    for (const p of [record.poster, record.backdrop, record.logo]) candidates.delete(p)
  }
  for (const p of candidates) {
    await ctx.assets.clear('/' + p).catch(() => null)
    await ctx.assets.del('/' + p)
  }
}
