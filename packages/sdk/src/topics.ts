import b4a from 'b4a'
import type Hyperswarm from 'hyperswarm'

/**
 * Reference-counted DHT topic membership. Feed topics follow the upload policy (spec 3
 * "uploadPolicy"): 'reseed' joins them announced (server + client) so other viewers can fetch
 * blocks from us; 'client-only' joins unannounced. The panel topic and prewarmed feed topics
 * (nothing to serve yet) are always client-only; a prewarmed topic becomes a feed topic when a
 * feed of it opens.
 */
export type TopicKind = 'panel' | 'feed' | 'prewarm'

export interface TopicHandle {
  readonly topic: Uint8Array
  /** Resolves when the current DHT lookup (and announce) finished; true on success. */
  flushed(): Promise<boolean>
  /** Forces a fresh DHT lookup now (spec 3 "paced re-lookups", "feed:rescan"). */
  refresh(): Promise<void>
  /** Drops this reference; the topic is left when the last one goes. Idempotent. */
  leave(): Promise<void>
}

interface Entry {
  topic: Uint8Array
  kind: TopicKind
  refs: number
  session: Hyperswarm.Discovery
}

export class Topics {
  private readonly entries = new Map<string, Entry>()
  private announce: boolean

  constructor (private readonly swarm: Hyperswarm, announce: boolean) {
    this.announce = announce
  }

  get announcing (): boolean { return this.announce }

  join (topic: Uint8Array, kind: TopicKind): TopicHandle {
    const id = b4a.toString(topic, 'hex')
    let entry = this.entries.get(id)
    if (entry === undefined) {
      entry = { topic, kind, refs: 0, session: this.swarm.join(topic, this.flags(kind)) }
      this.entries.set(id, entry)
    } else if (kind === 'feed' && entry.kind !== 'feed') {
      entry.kind = 'feed'
      if (this.announce) void entry.session.refresh(this.flags('feed')).catch(() => {})
    }
    entry.refs++
    let left = false
    const current = entry
    return {
      topic,
      flushed: async () => { await current.session.flushed(); return true },
      refresh: async () => {
        if (left || this.entries.get(id) !== current) return
        await current.session.refresh(this.flags(current.kind)).catch(() => {})
      },
      leave: async () => {
        if (left) return
        left = true
        if (--current.refs > 0 || this.entries.get(id) !== current) return
        this.entries.delete(id)
        await current.session.destroy().catch(() => {})
      }
    }
  }

  /** Topics currently joined of one kind (hex). */
  list (kind: TopicKind): string[] {
    return [...this.entries.entries()].filter(([, e]) => e.kind === kind).map(([id]) => id)
  }

  has (topic: Uint8Array): boolean {
    return this.entries.has(b4a.toString(topic, 'hex'))
  }

  /**
   * Switches the announce flag and re-joins every feed topic with it: the old membership is
   * destroyed (unannouncing when it was announced) before the new one starts. Resolves with the
   * number of topics re-joined.
   */
  async setAnnounce (announce: boolean): Promise<number> {
    this.announce = announce
    const feeds = [...this.entries.values()].filter((e) => e.kind === 'feed')
    await Promise.all(feeds.map(async (e) => {
      const old = e.session
      await old.destroy().catch(() => {})
      e.session = this.swarm.join(e.topic, this.flags('feed'))
    }))
    return feeds.length
  }

  async leaveAll (): Promise<void> {
    const all = [...this.entries.values()]
    this.entries.clear()
    await Promise.all(all.map((e) => e.session.destroy().catch(() => {})))
  }

  private flags (kind: TopicKind): { server: boolean; client: boolean } {
    return { client: true, server: kind === 'feed' && this.announce }
  }
}
