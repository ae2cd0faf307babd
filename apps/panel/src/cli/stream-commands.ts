import { readFile } from 'node:fs/promises'
import { extname } from 'node:path'
import type { Command } from 'commander'
import { PanelError } from '../errors.js'
import { uploadArt } from '../ops/art.js'
import { PatchStreamBody, setMeta, type StreamMetaPatch } from '../ops/stream-meta.js'
import { AddStreamBody, addStream, deleteStream } from '../ops/streams.js'
import { parseBool, withStore } from './context.js'
import { parseInput, type DaemonCli } from '@arus/service'

/** The given options only (commander leaves absent ones undefined; the strict schemas refuse unknown keys, not undefined ones). */
const defined = <T extends Record<string, unknown>>(o: T): Partial<T> => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>

const categories = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean)

function parseOrder (v: string): number | null {
  if (v === 'null' || v === '') return null
  if (!/^\d+$/.test(v)) throw PanelError.invalid('order must be 0-9999 or null')
  return Number(v)
}


/** Streams and art (spec 1 Admin CLI). The CLI has no redirect URL option (spec). */
export function streamCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli
  program.command('add-stream <id>').description('register a stream and generate its key (printed once)')
    .option('--title <title>').option('--category <list>', 'comma-separated categories')
    .option('--feed <feedKey>', 'feed key (hex)').option('--key <hex>', 'use this stream key instead of generating one')
    .action(async (id: string, o: { title?: string; category?: string; feed?: string; key?: string }) => {
      const input = parseInput(AddStreamBody, defined({
        id, title: o.title, category: o.category === undefined ? undefined : categories(o.category), feedKey: o.feed, key: o.key
      }), 'options')
      const r = await withStore(io, (ctx) => addStream(ctx, input))
      out(r, `stream ${id} added\nstream key (secret, shown once): ${r.key}`)
    })
  program.command('delete-stream <id>').description('full purge: record, key, grants, art')
    .action(async (id: string) => { await withStore(io, (ctx) => deleteStream(ctx, id)); out({ deleted: id }, `stream ${id} purged`) })
  program.command('set-meta <id>').description('update metadata; an empty --epg-url or --epg-id clears the EPG pair')
    .option('--title <title>').option('--description <text>').option('--category <list>')
    .option('--featured <bool>').option('--restricted <bool>', 'the parental flag').option('--order <n>', '0-9999 or null')
    .option('--epg-url <url>').option('--epg-id <id>')
    .action(async (id: string, o: Record<string, string | undefined>) => {
      const patch: StreamMetaPatch = parseInput(PatchStreamBody, defined({
        title: o.title,
        description: o.description,
        category: o.category === undefined ? undefined : categories(o.category),
        featured: o.featured === undefined ? undefined : parseBool('featured', o.featured),
        restricted: o.restricted === undefined ? undefined : parseBool('restricted', o.restricted),
        order: o.order === undefined ? undefined : parseOrder(o.order),
        epgUrl: o.epgUrl,
        epgId: o.epgId
      }), 'options')
      out(await withStore(io, (ctx) => setMeta(ctx, id, patch)), `stream ${id} updated`)
    })
  program.command('upload-art <id> <kind> <file>').description('add art (poster, backdrop or logo) to the assets drive')
    .action(async (id: string, kind: string, file: string) => {
      const bytes = await readFile(file)
      const r = await withStore(io, (ctx) => uploadArt(ctx, id, kind, bytes, extname(file)))
      out(r, `${kind} of ${id}: ${r.path}`)
    })
}
