import { Counter, createMetricsRegistry, Gauge, type Registry } from '@arus/service'
import type { Analytics } from './analytics.js'
import type { ChannelManager } from './channels/manager.js'
import type { Resume } from './channels/resume.js'
import { INCIDENT_KINDS, type IncidentLog } from './incidents.js'

/**
 * /metrics (spec 2 "GET /metrics"): process stats, channel counts, resume progress, the
 * incidents gauge, and per channel `arus_broadcaster_channel_peers{stream_id}` (a lower
 * bound of the audience) and `arus_broadcaster_channel_egress_bytes_total{stream_id}`,
 * both from the last analytics sample (live counters when analytics are off).
 */
export interface MetricsSources {
  manager: ChannelManager
  analytics: Analytics
  incidents: IncidentLog
  resume: Resume
}

export function createBroadcasterMetrics (src: MetricsSources): Registry {
  const registry = createMetricsRegistry()
  const registers = [registry]
  const sample = () => {
    const current = src.analytics.current()
    if (current) return Object.entries(current.channels).map(([id, c]) => ({ id, ...c }))
    return src.manager.counters()
  }

  new Gauge({
    name: 'arus_broadcaster_channels',
    help: 'Channels by state (stopped, starting, up, waiting-input, backoff)',
    labelNames: ['state'],
    registers,
    collect () {
      this.reset()
      for (const state of ['stopped', 'starting', 'up', 'waiting-input', 'backoff']) this.set({ state }, 0)
      for (const c of src.manager.list()) this.inc({ state: c.state })
    }
  })
  new Gauge({
    name: 'arus_broadcaster_channels_slated',
    help: 'Running channels currently looping the offline slate',
    registers,
    collect () { this.set(src.manager.list().filter((c) => c.slate.slated).length) }
  })
  new Gauge({
    name: 'arus_broadcaster_channel_peers',
    help: 'Peers replicating the channel feed at the last sample (lower bound of the audience)',
    labelNames: ['stream_id'],
    registers,
    collect () {
      this.reset()
      for (const c of sample()) this.set({ stream_id: c.id }, c.peers)
    }
  })
  const seen = new Map<string, number>()
  new Counter({
    name: 'arus_broadcaster_channel_egress_bytes_total',
    help: 'Feed bytes uploaded to peers, as of the last sample',
    labelNames: ['stream_id'],
    registers,
    collect () {
      for (const c of sample()) {
        const before = seen.get(c.id) ?? 0
        if (c.egressBytesTotal > before) this.inc({ stream_id: c.id }, c.egressBytesTotal - before)
        else if (!seen.has(c.id)) this.inc({ stream_id: c.id }, 0)
        seen.set(c.id, Math.max(before, c.egressBytesTotal))
      }
    }
  })
  const resume = (field: 'resumed' | 'total' | 'failed') => new Gauge({
    name: `arus_broadcaster_resume_${field}`,
    help: `Boot resume: channels ${field}`,
    registers,
    collect () { this.set(src.resume.status()[field]) }
  })
  resume('resumed'); resume('total'); resume('failed')
  new Gauge({
    name: 'arus_broadcaster_resume_in_progress',
    help: '1 while the boot resume is still starting channels',
    registers,
    collect () { this.set(src.resume.status().resuming ? 1 : 0) }
  })
  new Gauge({
    name: 'arus_broadcaster_incidents',
    help: 'Incident log entries by kind',
    labelNames: ['kind'],
    registers,
    collect () {
      const counts = src.incidents.counts()
      for (const kind of INCIDENT_KINDS) this.set({ kind }, counts.byKind[kind])
    }
  })
  new Gauge({
    name: 'arus_broadcaster_incidents_open',
    help: 'Incident windows still open (source outages)',
    registers,
    collect () { this.set(src.incidents.counts().open) }
  })
  return registry
}
