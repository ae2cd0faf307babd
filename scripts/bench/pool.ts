/**
 * Pools the samples of several `pnpm bench` runs (issue 21: "medians, pooled over at least three
 * runs where single runs spread"): for every metric of the main table (per configuration) and
 * of the bitrate table (per bitrate), the median, range and count of all samples together, and
 * each run's own median beside it. Prints a Markdown table.
 *
 *   pnpm exec tsx scripts/bench/pool.ts bench-results/bench-A.json bench-results/bench-B.json ...
 */
import { readFile } from 'node:fs/promises'
import { basename } from 'node:path'

type Samples = Record<string, number[]>
interface Run { file: string; date: string; seconds: number; samples: Record<string, Samples>; rateSamples: Record<string, Samples>; all?: Record<string, unknown> }

const files = process.argv.slice(2)
if (files.length < 2) {
  console.error('usage: tsx scripts/bench/pool.ts <bench-result.json> <bench-result.json> [...]')
  process.exit(2)
}
const runs: Run[] = []
for (const file of files) {
  const r = JSON.parse(await readFile(file, 'utf8')) as Partial<Run> & { quick?: boolean }
  if (r.samples === undefined || r.rateSamples === undefined || r.quick === true) throw new Error(`${file}: not a full bench result`)
  runs.push({ file: basename(file), date: r.date ?? '?', seconds: r.seconds ?? 0, samples: r.samples, rateSamples: r.rateSamples })
}

const median = (xs: number[]): number => {
  const v = [...xs].sort((a, b) => a - b)
  return v.length % 2 ? v[(v.length - 1) / 2]! : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2
}
const fmt = (x: number): string => (Math.abs(x) < 10 ? x.toFixed(2) : x.toFixed(0))

/** One table: rows = metrics, a pooled cell and the per-run medians per column key. */
function table (title: string, pick: (r: Run) => Record<string, Samples>, columns: string[], metrics: string[]): string {
  const head = `| ${title} | ${columns.map((c) => `${c}: pooled median (min–max, n) · per run`).join(' | ')} |`
  const rows = metrics.map((m) => {
    const cells = columns.map((c) => {
      const per = runs.map((r) => pick(r)[c]?.[m] ?? [])
      const all = per.flat()
      if (all.length === 0) return '—'
      return `${fmt(median(all))} (${fmt(Math.min(...all))}–${fmt(Math.max(...all))}, n=${all.length}) · ${per.map((xs) => (xs.length ? fmt(median(xs)) : '—')).join(' / ')}`
    })
    return `| ${m} | ${cells.join(' | ')} |`
  })
  return [head, `|---|${columns.map(() => '---').join('|')}|`, ...rows].join('\n')
}

const MAIN = ['login_ms', 'cold_tune_ms', 'zap_ms(prefetch off)', 'zap_ms(prefetch on)', 'propagation_ms', 'propagation.answered_ms', 'propagation.viewer_append_ms', 'viewer_rss_mb', 'broadcaster_rss_mb', 'cpu_pct_per_channel',
  'edge_delay_ms(1 viewer)', 'edge_delay_ms(4 viewers)', 'edge_delay_ms(8 viewers)', 'egress_multiple(8)', 'viewer_cpu_pct(1 viewer)', 'viewer_cpu_pct(4 viewers)', 'viewer_cpu_pct(8 viewers)']
const RATE = ['cold_tune_ms', 'viewer_rss_mb(while playing)', 'viewer_rss_mb', 'viewer_cpu_pct', 'propagation_ms', 'propagation.answered_ms', 'propagation.viewer_append_ms', 'first_frame_ms']

console.log(`Pooled over ${runs.length} full runs (${runs.map((r) => `${r.file}, ${r.seconds} s`).join('; ')}); "per run" lists each run's own median in that order.\n`)
console.log(table('Metric', (r) => r.samples, ['shaped', 'unshaped'], MAIN))
console.log('')
console.log(table('Bitrate phase', (r) => r.rateSamples, ['low', 'high'], RATE))
