import { createMetricsRegistry, Gauge, type Registry } from '@arus/service'
import type { Repeater } from './repeater.js'

/**
 * /metrics (docs/repeater.md "Metrics"): the kit's process stats and, per mirrored record
 * (`channel` = stream id, `type` = live | vod): bytes in and out, peers, blocks and bytes held,
 * lag behind the origin's head; the disk budget and what is held in all.
 */
export function createRepeaterMetrics (repeater: Repeater, swarm: { connections: { size: number } }): Registry {
  const registry = createMetricsRegistry()
  const registers = [registry]
  const perMirror = (name: string, help: string, pick: (m: ReturnType<Repeater['stats']>['mirrors'][number]) => number): void => {
    new Gauge({
      name, help, labelNames: ['channel', 'type'], registers,
      collect () {
        this.reset()
        for (const m of repeater.stats().mirrors) this.set({ channel: m.id, type: m.type }, pick(m))
      }
    })
  }
  perMirror('arus_repeater_bytes_in', 'Bytes downloaded from the origin and peers, per mirrored record, since the mirror started', (m) => m.bytesIn)
  perMirror('arus_repeater_bytes_out', 'Bytes served to viewers, per mirrored record, since the mirror started', (m) => m.bytesOut)
  perMirror('arus_repeater_peers', 'Peers replicating the record\'s feed with the repeater', (m) => m.peers)
  perMirror('arus_repeater_blocks_held', 'Blocks held (both cores)', (m) => m.blocksHeld)
  perMirror('arus_repeater_disk_bytes', 'Bytes held on disk (both cores)', (m) => m.bytesHeld)
  perMirror('arus_repeater_lag_blocks', 'Media blocks between the newest held and the origin\'s head', (m) => m.lag)
  perMirror('arus_repeater_evicted', '1 while a VOD title is evicted for the disk budget', (m) => (m.state === 'evicted' ? 1 : 0))
  new Gauge({ name: 'arus_repeater_disk_budget_bytes', help: 'MAX_DISK_MB in bytes', registers, collect () { this.set(repeater.stats().maxDiskBytes) } })
  new Gauge({ name: 'arus_repeater_disk_used_bytes', help: 'Bytes held across every mirror', registers, collect () { this.set(repeater.stats().bytesHeld) } })
  new Gauge({ name: 'arus_repeater_swarm_connections', help: 'Swarm connections', registers, collect () { this.set(swarm.connections.size) } })
  return registry
}
