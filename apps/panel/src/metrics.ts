import type { CatalogWriter } from '@arus/catalog'
import { Counter as PromCounter, Gauge, createMetricsRegistry, type Registry } from '@arus/service'

/**
 * Panel metrics, served by the admin HTTP server at /metrics (spec 1 "Health, status,
 * monitoring"; `svc_` is `arus_` here): prom-client's process metrics (RSS, heap, CPU),
 * `arus_panel_uptime_seconds`, `arus_panel_swarm_connections`, the viewer login counters
 * `arus_panel_logins_ok_total`, `arus_panel_logins_failed_total`,
 * `arus_panel_sessions_issued_total`, and `arus_panel_catalog_channels{class}` with class
 * live, redirect or vod. The HTTP kit adds `arus_panel_admin_logins_total{result}`.
 */

/** A counter the RPC handlers bump; `value()` reads it synchronously. */
export interface Counter { inc(n?: number): void; value(): number }

/** Live values the gauges read at scrape time. */
export interface PanelGaugeSource {
  startedAt: number
  swarmConnections(): number
  /** Catalog records per class. */
  channels(): Promise<{ live: number; redirect: number; vod: number }>
}

export interface PanelMetrics {
  registry: Registry
  loginsOk: Counter
  loginsFailed: Counter
  sessionsIssued: Counter
  /** Connects the gauges to the running panel (before that they read 0). */
  bind(source: PanelGaugeSource): void
}

export const METRICS_PREFIX = 'arus_panel_'

function counter (registry: Registry, name: string, help: string): Counter {
  const c = new PromCounter({ name: `${METRICS_PREFIX}${name}`, help, registers: [registry] })
  let n = 0
  return { inc (by = 1) { n += by; c.inc(by) }, value: () => n }
}

export function createPanelMetrics (): PanelMetrics {
  const registry = createMetricsRegistry()
  let source: PanelGaugeSource | null = null
  new Gauge({
    name: `${METRICS_PREFIX}uptime_seconds`,
    help: 'Seconds since the panel started',
    registers: [registry],
    collect () { this.set(source ? Math.floor((Date.now() - source.startedAt) / 1000) : 0) }
  })
  new Gauge({
    name: `${METRICS_PREFIX}swarm_connections`,
    help: 'Open swarm connections (viewers, broadcasters, libraries)',
    registers: [registry],
    collect () { this.set(source ? source.swarmConnections() : 0) }
  })
  new Gauge({
    name: `${METRICS_PREFIX}catalog_channels`,
    help: 'Catalog records by class (live, redirect, vod)',
    labelNames: ['class'],
    registers: [registry],
    async collect () {
      const n = source ? await source.channels() : { live: 0, redirect: 0, vod: 0 }
      for (const [cls, count] of Object.entries(n)) this.set({ class: cls }, count)
    }
  })
  return {
    registry,
    loginsOk: counter(registry, 'logins_ok_total', 'Viewer logins that issued a session'),
    loginsFailed: counter(registry, 'logins_failed_total', 'Viewer login attempts refused (locked, bad proof, unknown or disabled account)'),
    sessionsIssued: counter(registry, 'sessions_issued_total', 'Viewer session tokens issued'),
    bind (s) { source = s }
  }
}

/** Catalog records per class for `arus_panel_catalog_channels{class}`. */
export async function countChannels (catalog: Pick<CatalogWriter, 'listStreams'>): Promise<{ live: number; redirect: number; vod: number }> {
  const n = { live: 0, redirect: 0, vod: 0 }
  for (const { record } of await catalog.listStreams()) n[record.type === 'vod' ? 'vod' : record.redirect ? 'redirect' : 'live']++
  return n
}
