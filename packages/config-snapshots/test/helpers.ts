import { join } from 'node:path'
import { z } from 'zod'
import {
  buildControlServer, createActivity, createLogger, createMetricsRegistry, issueAdminToken, loadSigningKey, type FastifyInstance, type Logger
} from '@arus/service'
import { tmpDir, type TestContextLike } from '@arus/testkit'
import {
  configRoutes, createConfigSnapshots, type ConfigSection, type ConfigSnapshots, type ConfigSnapshotsInit, type SectionPlan
} from '@arus/config-snapshots'

/**
 * The test subject's collaborators: two in-memory sections shaped like a daemon's (streams
 * with a secret per-stream key; snapshot-only users with grants), a log capture and a real
 * control server.
 */

export const Stream = z.object({ id: z.string(), title: z.string(), key: z.string().optional() })
export type Stream = z.infer<typeof Stream>
export const StreamsPayload = z.array(Stream)

/** A live map of streams; `writes` counts every mutation apply made. */
export interface FakeStreams { live: Map<string, Stream>; writes: number; section: ConfigSection<Stream[]>; onRemove?: (id: string) => Promise<void> }

export function fakeStreams (initial: Stream[] = [], over: Partial<ConfigSection<Stream[]>> = {}): FakeStreams {
  const fake: FakeStreams = { live: new Map(initial.map((s) => [s.id, { ...s }])), writes: 0, section: undefined as never }
  fake.section = {
    name: 'streams',
    schema: StreamsPayload,
    describe: 'streams and their metadata; a live per-stream key is never overwritten',
    async export () { return [...fake.live.values()].map((s) => ({ ...s })) },
    toTemplate (data) {
      return { data: data.map(({ key: _key, ...rest }) => rest), omitted: [{ path: '[*].key', reason: 'secret: per-stream key' }] }
    },
    async apply (data, opts): Promise<SectionPlan> {
      const plan: SectionPlan = { added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] }
      const want = new Set(data.map((s) => s.id))
      for (const s of data) {
        const cur = fake.live.get(s.id)
        if (cur === undefined) {
          plan.added.push(s.id)
          if (!opts.dryRun) { fake.live.set(s.id, { id: s.id, title: s.title, key: opts.source === 'template' ? `new-key-${s.id}` : s.key }); fake.writes++ }
        } else if (cur.title !== s.title) {
          plan.changed.push(s.id)
          if (!opts.dryRun) { cur.title = s.title; fake.writes++ } // the live key stays
        } else {
          plan.leftAlone.push(s.id)
        }
      }
      if (opts.removeExtra) {
        for (const id of [...fake.live.keys()]) {
          if (want.has(id)) continue
          plan.removed.push(id)
          if (!opts.dryRun) { await fake.onRemove?.(id); fake.live.delete(id); fake.writes++ }
        }
      }
      return plan
    },
    ...over
  }
  return fake
}

export const User = z.object({ name: z.string(), grants: z.array(z.string()) })

/** Snapshot-only users (entitlements); restores refused unless `restoreSupported`. */
export function fakeUsers (users: Array<z.infer<typeof User>> = [{ name: 'alice', grants: ['news'] }], restoreSupported = false): ConfigSection<Array<z.infer<typeof User>>> {
  return {
    name: 'users',
    schema: z.array(User),
    snapshotOnly: true,
    restoreSupported,
    async export () { return users.map((u) => ({ ...u })) },
    async apply () { throw new Error('users.apply must not be called') }
  }
}

/** A pino logger whose records the test reads back. */
export function captureLog (): { log: Logger; records: () => Array<Record<string, any>> } {
  const chunks: string[] = []
  const log = createLogger({ name: 'test', level: 'info', destination: { write: (s: string) => { chunks.push(s) } } })
  return { log, records: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) }
}

export interface Subject {
  root: string
  dir: string
  streams: FakeStreams
  snapshots: ConfigSnapshots
  records: () => Array<Record<string, any>>
  clock: { now: number }
}

/** A ConfigSnapshots for service 'panel' in a temp dir, with streams a, b and the users section. */
export function subject (t: TestContextLike, over: Partial<ConfigSnapshotsInit> = {}): Subject {
  const root = tmpDir(t, 'arus-config-')
  const dir = join(root, 'data', 'config-snapshots')
  const streams = fakeStreams([{ id: 'a', title: 'A', key: 'secret-a' }, { id: 'b', title: 'B', key: 'secret-b' }])
  const { log, records } = captureLog()
  const clock = { now: Date.parse('2026-11-24T10:15:00.123Z') }
  const snapshots = createConfigSnapshots({
    service: 'panel',
    dir,
    keep: 20,
    sections: [streams.section, fakeUsers()],
    log,
    activity: createActivity(log),
    now: () => clock.now,
    ...over
  })
  return { root, dir, streams, snapshots, records, clock }
}

/** A real control server with the config routes mounted and a valid admin token. */
export async function server (t: TestContextLike, snapshots: ConfigSnapshots): Promise<{ app: FastifyInstance; headers: Record<string, string> }> {
  const keys = await loadSigningKey(join(tmpDir(t, 'arus-keys-'), 'signing-key.json'))
  const app = buildControlServer({
    log: captureLog().log,
    info: { title: 'test', version: '0.0.0' },
    metrics: createMetricsRegistry({ defaultMetrics: false }),
    auth: { keys, currentTokenVersion: async (name) => name === 'root' ? 0 : null, verifierInput: async () => null, lockout: { threshold: 5, windowSeconds: 60 } }
  })
  configRoutes(app, snapshots)
  t.onTestFinished(() => app.close())
  const { token } = issueAdminToken(keys, 'root', 0, 3_600_000)
  return { app, headers: { authorization: `Bearer ${token}` } }
}
