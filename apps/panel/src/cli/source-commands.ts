import type { Command } from 'commander'
import { parseInput, type DaemonCli } from '@arus/service'
import { PanelError } from '../errors.js'
import { syncSource } from '../ops/source-sync.js'
import {
  AddSourceBody, getSource, listSources, mustSource, PatchSourceBody, removeSource, setSource, writeNewSource, writeSourcePatch, writeSourceRemoval
} from '../ops/sources.js'
import { storeOrRegistry, withRegistries, withStore } from './context.js'


const PENDING = 'the running panel syncs it within seconds'
const hours = (v: string) => {
  const h = Number(v)
  if (!Number.isFinite(h) || h <= 0) throw PanelError.invalid('--interval-hours must be a positive number')
  return Math.round(h * 3_600_000)
}
const feedIds = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean).map((id) => ({ id, title: '' }))

/** Remote sources (spec 1 Admin CLI): registry edits work beside a running panel; sync-source needs the store. */
export function sourceCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli
  program.command('add-source <name> <url>').description('register a remote source (a JSON feed or an M3U playlist over https)')
    .requiredOption('--category <label>', 'label of every imported channel').option('--prefix <prefix>', "stream id prefix (default '<name>.')")
    .option('--interval-hours <n>', 'sync period (default 6)').option('--auto-grant <bool>', 'grant imported channels to every user (default true)')
    .option('--disabled', 'register it paused')
    .action(async (name: string, url: string, o: { category: string; prefix?: string; intervalHours?: string; autoGrant?: string; disabled?: boolean }) => {
      const input = parseInput(AddSourceBody, {
        name, url, category: o.category,
        ...(o.prefix !== undefined ? { prefix: o.prefix } : {}),
        ...(o.intervalHours !== undefined ? { intervalMs: hours(o.intervalHours) } : {}),
        ...(o.autoGrant !== undefined ? { autoGrant: o.autoGrant !== 'false' && o.autoGrant !== '0' } : {}),
        ...(o.disabled === true ? { enabled: false } : {})
      }, 'options')
      const r = await storeOrRegistry(
        () => withStore(io, async (ctx) => {
          await writeNewSource(ctx, input)
          const sync = await syncSource(ctx, name).catch(() => null)
          return { ...(await getSource(ctx, name)), sync }
        }),
        async () => ({ ...(await withRegistries(io, (ctx) => writeNewSource(ctx, input))), pending: PENDING }))
      out(r, `source ${name} added`)
    })
  program.command('list-sources').description('sources with their last sync (owned-channel counts need the store)')
    .action(async () => {
      const sources = await storeOrRegistry(() => withStore(io, (ctx) => listSources(ctx)), () => withRegistries(io, async (ctx) => {
        const state = await ctx.registries.sourceState.all()
        return Object.entries(await ctx.registries.sources.all()).map(([n, s]) => ({ name: n, ...s, lastSync: state[n]?.lastSync ?? null, lastError: state[n]?.lastError ?? null }))
      })) as Array<{ name: string; enabled: boolean; category: string }>
      out({ sources }, sources.map((s) => `${s.name}  ${s.enabled ? 'enabled' : 'paused'}  ${s.category}`).join('\n') || '(no sources)')
    })
  program.command('set-source <name>').description('edit a source; an empty --exclude re-includes all')
    .option('--url <url>').option('--category <label>').option('--exclude <ids>', 'comma-separated feed ids to leave out')
    .option('--enabled <bool>').option('--auto-grant <bool>').option('--interval-hours <n>')
    .action(async (name: string, o: { url?: string; category?: string; exclude?: string; enabled?: string; autoGrant?: string; intervalHours?: string }) => {
      const bool = (v: string) => v !== 'false' && v !== '0'
      const patch = parseInput(PatchSourceBody, {
        ...(o.url !== undefined ? { url: o.url } : {}),
        ...(o.category !== undefined ? { category: o.category } : {}),
        ...(o.exclude !== undefined ? { exclude: feedIds(o.exclude) } : {}),
        ...(o.enabled !== undefined ? { enabled: bool(o.enabled) } : {}),
        ...(o.autoGrant !== undefined ? { autoGrant: bool(o.autoGrant) } : {}),
        ...(o.intervalHours !== undefined ? { intervalMs: hours(o.intervalHours) } : {})
      }, 'options')
      const r = await storeOrRegistry(() => withStore(io, (ctx) => setSource(ctx, name, patch)),
        async () => ({ ...(await withRegistries(io, (ctx) => writeSourcePatch(ctx, name, patch))), pending: PENDING }))
      out(r, `source ${name} updated`)
    })
  program.command('remove-source <name>').description('remove a source: its channels are purged, or detached as manual channels')
    .option('--keep-channels', 'detach the channels instead')
    .action(async (name: string, o: { keepChannels?: boolean }) => {
      const keepChannels = o.keepChannels === true
      const r = await storeOrRegistry(() => withStore(io, (ctx) => removeSource(ctx, name, { keepChannels })), () => withRegistries(io, async (ctx) => {
        mustSource(await ctx.registries.sources.all(), name)
        await ctx.snapshots.beforeDestructive(`remove source ${name}`)
        await writeSourceRemoval(ctx, name, { keepChannels })
        return { pending: `the running panel ${keepChannels ? 'detaches' : 'purges'} its channels within seconds` }
      }))
      out({ deleted: name, ...(r as object) }, `source ${name} removed`)
    })
  program.command('sync-source <name>').description('pull, diff and grant now (needs the store: stop the panel, or use the API)')
    .action(async (name: string) => {
      const report = await withStore(io, (ctx) => syncSource(ctx, name))
      out(report, `added ${report.added.length}, updated ${report.updated.length}, removed ${report.removed.length}, skipped ${report.skipped.length}, logos dropped ${report.dropped.length}, conflicts ${report.conflicts.length}${report.notModified ? ' (not modified)' : ''}`)
    })
}
