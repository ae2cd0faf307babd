import { randomBytes } from 'node:crypto'
import { z } from 'zod'
import type { ConfigSection, SectionPlan } from '@arus/config-snapshots'
import { Channel } from './channels/model.js'
import { FeedIdentity, type ChannelStores } from './channels/store.js'

/**
 * The broadcaster's config sections (spec 2 "shared config and backup routes"), applied in
 * this order: feed identities (snapshot only), then channels.
 *
 * - Feed identities (content key and feed generations): a missing one is put back, a live one
 *   is never overwritten, none is ever removed — so a restored channel keeps its content key
 *   and viewers' grants keep working.
 * - Channels (input, transcode, buffer and HLS settings): a missing one is added and, if the
 *   snapshot had it running, started; an existing one whose settings differ is patched
 *   (applies on its next start); `removeExtra` removes stopped channels the snapshot lacks
 *   (a running one is skipped). A template carries no SRT passphrase: an import gives each
 *   such push channel a new one.
 */

/** Channel writes: the running daemon's manager, or the files when the daemon is stopped (CLI). */
export interface ChannelWriter {
  /** Adds a channel as defined; starts it when `start`. */
  add(ch: Channel, start: boolean): Promise<void>
  /** Sets the definition fields of an existing channel. */
  patch(ch: Channel): Promise<void>
  /** Removes a stopped channel; resolves false when it runs (left in place). */
  remove(id: string): Promise<boolean>
}

const ChannelsData = z.object({
  channels: z.record(z.string(), Channel),
  /** Template only: push channels whose secret was left out; an import generates a new one. */
  newSecret: z.array(z.string()).default([])
})
type ChannelsData = z.infer<typeof ChannelsData>
const IdentitiesData = z.record(z.string(), FeedIdentity)
type IdentitiesData = z.infer<typeof IdentitiesData>

const DEFINITION = ['title', 'category', 'input', 'transcode', 'buffer', 'hlsTime', 'hlsListSize'] as const

const emptyPlan = (): SectionPlan => ({ added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] })
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b)
const definition = (ch: Channel) => Object.fromEntries(DEFINITION.map((f) => [f, ch[f]]))

/** A fresh SRT passphrase (32 hex characters: within SRT's 10-79). */
const newPassphrase = () => randomBytes(16).toString('hex')

export function broadcasterConfigSections (stores: ChannelStores, writer: ChannelWriter): ConfigSection<any>[] {
  const identities: ConfigSection<IdentitiesData> = {
    name: 'feed-identities',
    describe: 'per-channel content keys and feed generations (snapshot only; a live one is never overwritten)',
    schema: IdentitiesData,
    snapshotOnly: true,
    export: async () => stores.identities.all(),
    async apply (data, { dryRun }) {
      const plan = emptyPlan()
      for (const [id, identity] of Object.entries(data)) {
        const cur = stores.identities.get(id)
        if (cur === undefined) {
          plan.added.push(id)
          if (!dryRun) await stores.identities.set(id, identity)
        } else if (same(cur, identity) || cur.key === identity.key) {
          plan.leftAlone.push(id)
        } else {
          plan.skipped.push({ id, reason: 'a live feed identity (content key) is never overwritten' })
        }
      }
      return plan
    }
  }

  const channels: ConfigSection<ChannelsData> = {
    name: 'channels',
    describe: 'channel definitions: input, transcode, buffer and HLS settings',
    schema: ChannelsData,
    export: async () => ({ channels: stores.channels.all(), newSecret: [] }),
    toTemplate (data) {
      const omitted: Array<{ path: string; reason: string }> = []
      const newSecret: string[] = []
      const out: Record<string, Channel> = {}
      for (const [id, ch] of Object.entries(data.channels)) {
        if (ch.input.kind === 'srt' && ch.input.passphrase !== undefined) {
          const { passphrase: _p, ...input } = ch.input
          out[id] = { ...ch, input, desiredRunning: false }
          omitted.push({ path: `channels.${id}.input.passphrase`, reason: 'SRT passphrase (secret): an import generates a new one' })
          newSecret.push(id)
        } else {
          out[id] = { ...ch, desiredRunning: false }
        }
      }
      return { data: { channels: out, newSecret }, omitted }
    },
    async apply (data, { dryRun, removeExtra, source }) {
      const plan = emptyPlan()
      for (const [id, wanted] of Object.entries(data.channels)) {
        const cur = stores.channels.get(id)
        let ch = { ...wanted, id }
        if (source === 'template' && data.newSecret.includes(id) && ch.input.kind === 'srt') {
          ch = { ...ch, input: { ...ch.input, passphrase: newPassphrase() } }
          plan.warnings.push(`channel ${id}: new SRT passphrase (see GET /api/channels/${id} on the box; give it to the publisher)`)
        }
        if (cur === undefined) {
          plan.added.push(id)
          if (!dryRun) await writer.add(ch, source === 'snapshot' && ch.desiredRunning)
        } else if (same(definition(cur), definition(ch))) {
          plan.leftAlone.push(id)
        } else {
          plan.changed.push(id)
          if (!dryRun) await writer.patch({ ...cur, ...definition(ch) })
        }
      }
      if (removeExtra) {
        for (const [id, cur] of Object.entries(stores.channels.all())) {
          if (Object.hasOwn(data.channels, id)) continue
          if (cur.desiredRunning) { plan.skipped.push({ id, reason: 'running: stop it first' }); continue }
          if (dryRun) { plan.removed.push(id); continue }
          if (await writer.remove(id)) plan.removed.push(id)
          else plan.skipped.push({ id, reason: 'running: stop it first' })
        }
      }
      return plan
    }
  }

  return [identities, channels]
}
