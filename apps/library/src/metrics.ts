import { createMetricsRegistry, Gauge, type Registry } from '@arus/service'
import type { PanelLink } from '@arus/publisher'
import type { Library } from './titles/library.js'

/**
 * /metrics (spec 2 "GET /metrics"): the kit's process stats, `arus_library_titles{state}`,
 * `arus_library_title_bytes` (disk use: the sum of title sizes), and the panel link gauges
 * `arus_library_panel_connected` and `arus_library_panel_pending_ops`.
 */
export function createLibraryMetrics (library: Library, link: PanelLink | null): Registry {
  const registry = createMetricsRegistry()
  const registers = [registry]
  new Gauge({
    name: 'arus_library_titles',
    help: 'Titles by state (queued, ingesting, ready, error)',
    labelNames: ['state'],
    registers,
    collect () {
      const n = library.counts()
      for (const state of ['queued', 'ingesting', 'ready', 'error'] as const) this.set({ state }, n[state])
    }
  })
  new Gauge({ name: 'arus_library_title_bytes', help: 'Bytes of every ready title\'s segments (disk use is their sum)', registers, collect () { this.set(library.list().reduce((n, t) => n + t.bytes, 0)) } })
  new Gauge({ name: 'arus_library_panel_connected', help: '1 while connected to the panel', registers, collect () { this.set(link?.connected() === true ? 1 : 0) } })
  new Gauge({ name: 'arus_library_panel_pending_ops', help: 'Registrations the panel has not acknowledged yet', registers, collect () { this.set(library.pendingOps()) } })
  return registry
}
