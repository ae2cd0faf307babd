import type { Command } from 'commander'
import { parseInput, type DaemonCli } from '@arus/service'
import { PanelError } from '../errors.js'
import { getVodConfig, PatchVodConfigBody, setVodConfig } from '../ops/vod-config.js'
import { withStore } from './context.js'

/** `a=b,c=d` → {a: 'b', c: 'd'} (an empty string is an empty map). */
function pairs (v: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const part of v.split(',').map((s) => s.trim()).filter(Boolean)) {
    const i = part.indexOf('=')
    if (i <= 0) throw PanelError.invalid(`"${part.slice(0, 64)}" is not key=value`)
    out[part.slice(0, i)] = part.slice(i + 1)
  }
  return out
}

interface SetOptions { enabled?: string; apiBase?: string; service?: string; moviesSource?: string; seriesSource?: string; params?: string; param?: string[] }

/** vod-config, vod-config-set (spec 1 Admin CLI; they need the store). */
export function vodConfigCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli
  program.command('vod-config').description('show the VOD provider settings (null until configured)')
    .action(async () => {
      const vodConfig = await withStore(io, (ctx) => getVodConfig(ctx))
      out({ vodConfig }, vodConfig === null ? '(not configured)' : JSON.stringify(vodConfig, null, 2))
    })
  program.command('vod-config-set').description('merge VOD provider settings; --params replaces the map, --param k=v merges one key, an empty source clears it')
    .option('--enabled <bool>', 'true or false').option('--api-base <url>', 'https, no query string or credentials').option('--service <name>')
    .option('--movies-source <id>').option('--series-source <id>')
    .option('--params <pairs>', 'a=b,c=d: replaces the whole map')
    .option('--param <pair>', 'k=v: sets one key (repeatable)', (v: string, acc: string[] = []) => [...acc, v])
    .action(async (o: SetOptions) => {
      const result = await withStore(io, async (ctx) => {
        const cur = await getVodConfig(ctx)
        let params = o.params === undefined ? undefined : pairs(o.params)
        if (o.param !== undefined) params = { ...(params ?? cur?.params ?? {}), ...pairs(o.param.join(',')) }
        const sources = o.moviesSource === undefined && o.seriesSource === undefined
          ? undefined
          : { ...cur?.sources, ...(o.moviesSource !== undefined ? { movies: o.moviesSource } : {}), ...(o.seriesSource !== undefined ? { series: o.seriesSource } : {}) }
        const patch = parseInput(PatchVodConfigBody, {
          ...(o.enabled !== undefined ? { enabled: o.enabled === 'true' || o.enabled === '1' ? true : o.enabled === 'false' || o.enabled === '0' ? false : o.enabled } : {}),
          ...(o.apiBase !== undefined ? { apiBase: o.apiBase } : {}),
          ...(o.service !== undefined ? { service: o.service } : {}),
          ...(sources !== undefined ? { sources } : {}),
          ...(params !== undefined ? { params } : {})
        }, 'options')
        return setVodConfig(ctx, patch)
      })
      out({ vodConfig: result }, JSON.stringify(result, null, 2))
    })
}
