import type { Logger } from '@arus/service'
import type { BroadcasterConfig } from '../config.js'
import { parseInput, inputFingerprint } from './input.js'
import type { ChannelManager } from './manager.js'
import type { ChannelStores } from './store.js'

/**
 * The legacy env channel (spec 2 "Broadcaster environment": STREAM_ID, INPUT, TITLE,
 * CATEGORY). Created at boot when absent, its input kept in step with INPUT, and always
 * desired-running: the env says it should be on air. Its first feed generation lives in the
 * legacy root store, so an existing single-channel deployment keeps its feed identity.
 */
export async function ensureEnvChannel (config: Pick<BroadcasterConfig, 'STREAM_ID' | 'INPUT' | 'TITLE' | 'CATEGORY'>, manager: ChannelManager, stores: ChannelStores, log: Logger): Promise<string | null> {
  const id = config.STREAM_ID
  if (!id) return null
  if (!config.INPUT) {
    log.warn({ event: 'env-channel.no-input', channel: id }, 'STREAM_ID is set but INPUT is not: no env channel')
    return null
  }
  const input = parseInput(config.INPUT)
  const existing = stores.channels.get(id)
  if (!existing) {
    await manager.add({ id, input, title: config.TITLE ?? id, category: [...config.CATEGORY] }, { legacy: true, desiredRunning: true })
    return id
  }
  if (inputFingerprint(existing.input) !== inputFingerprint(input)) await manager.patch(id, { input })
  if (!existing.desiredRunning) await stores.channels.set(id, { ...stores.channels.get(id)!, desiredRunning: true })
  return id
}
