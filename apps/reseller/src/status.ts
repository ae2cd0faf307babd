import { statfs } from 'node:fs/promises'
import { arch, cpus, freemem, hostname, loadavg, platform, release, totalmem, uptime } from 'node:os'
import { z } from 'zod'
import { isAdminTier, type Caller } from './access.js'
import { DAY_MS, type ResellerCore } from './core.js'
import { EXPIRING_DAYS } from './accounts/model.js'
import type { Reconciler } from './ops/reconcile.js'
import type { Sweeper } from './ops/sweep.js'

/** /healthz, GET /api/status (role-scoped KPIs) and GET /api/system (admin tiers). */

export interface StatusDeps { core: ResellerCore; sweeper: Sweeper; reconciler: Reconciler; startedAt: number; dataDir: string }

export const StatusReply = z.object({
  balance: z.number().int(),
  accounts: z.object({ total: z.number().int(), active: z.number().int(), expiring: z.number().int(), trial: z.number().int(), disabled: z.number().int() }),
  principals: z.number().int().optional(),
  outstandingCredits: z.number().int().optional(),
  panel: z.object({ reachable: z.boolean(), lastOkAt: z.number().nullable() }).optional(),
  lastReconcile: z.number().nullable().optional()
})

export function healthExtras (d: StatusDeps): Record<string, unknown> {
  const p = d.core.panel.health()
  const t = d.core.ledger.totals()
  const s = d.sweeper.state()
  return {
    // Not ok while the panel is unreachable: every activation, renew and sweep would fail (502).
    ok: t.invariantOk && p.reachable,
    principals: d.core.principals.size,
    accounts: d.core.accounts.size,
    panel: { reachable: p.reachable, lastOkAt: p.lastOkAt, url: p.url, lastError: p.lastError },
    sweep: { runs: s.runs, lastRunAt: s.lastRunAt, lastOkAt: s.lastOkAt, failed: s.failed },
    ledger: { seq: t.seq, invariantOk: t.invariantOk }
  }
}

export function status (d: StatusDeps, caller: Caller): z.input<typeof StatusReply> {
  const { core } = d
  const admin = isAdminTier(caller.role)
  const scope = admin ? null : new Set(core.principals.subtree(caller.name))
  const now = core.now()
  const n = { total: 0, active: 0, expiring: 0, trial: 0, disabled: 0 }
  for (const [, a] of core.accounts.entries()) {
    if (scope && !scope.has(a.owner)) continue
    n.total++
    if (a.status === 'active') n.active++
    else n.disabled++
    if (a.status === 'active' && a.expiresAt <= now + EXPIRING_DAYS * DAY_MS) n.expiring++
    if (a.trial) n.trial++
  }
  const out: z.input<typeof StatusReply> = { balance: core.ledger.balance(caller.name), accounts: n }
  if (admin) {
    const p = core.panel.health()
    out.principals = core.principals.size
    out.outstandingCredits = core.ledger.totals().outstanding
    out.panel = { reachable: p.reachable, lastOkAt: p.lastOkAt }
    out.lastReconcile = d.reconciler.state().ranAt
  }
  return out
}

export const SystemReply = z.object({
  service: z.object({ node: z.string(), pid: z.number(), uptimeSec: z.number(), rssBytes: z.number(), heapUsedBytes: z.number(), dataDir: z.string(), sweeps: z.unknown(), ledger: z.unknown() }),
  host: z.object({
    hostname: z.string(), platform: z.string(), release: z.string(), arch: z.string(), cpuModel: z.string(), cpuCount: z.number(),
    loadavg: z.array(z.number()), totalMemBytes: z.number(), freeMemBytes: z.number(), uptimeSec: z.number(),
    disk: z.object({ totalBytes: z.number().nullable(), freeBytes: z.number().nullable() })
  }),
  panel: z.object({
    url: z.string(), reachable: z.boolean(), lastOkAt: z.number().nullable(), lastError: z.string().nullable(), latencyMs: z.number().nullable(),
    stats: z.object({ panelKey: z.string(), users: z.number(), streams: z.number(), live: z.number(), admins: z.number() }).nullable(),
    error: z.string().nullable()
  })
})

/** A down panel fills `panel.error` instead of failing the request. */
export async function system (d: StatusDeps): Promise<z.input<typeof SystemReply>> {
  const mem = process.memoryUsage()
  const disk = await statfs(d.dataDir).then((s) => ({ totalBytes: s.blocks * s.bsize, freeBytes: s.bavail * s.bsize }), () => ({ totalBytes: null, freeBytes: null }))
  let stats: z.input<typeof SystemReply>['panel']['stats'] = null
  let error: string | null = null
  try {
    const s = await d.core.panel.call<{ panelKey: string; users: number; streams: number; live: number; admins: number }>('GET', '/api/status')
    stats = { panelKey: s.panelKey, users: s.users, streams: s.streams, live: s.live, admins: s.admins }
  } catch (err) {
    error = (err as Error).message
  }
  const cpu = cpus()
  return {
    service: {
      node: process.version, pid: process.pid, uptimeSec: Math.floor((Date.now() - d.startedAt) / 1000), rssBytes: mem.rss, heapUsedBytes: mem.heapUsed,
      dataDir: d.dataDir, sweeps: d.sweeper.state(), ledger: d.core.ledger.totals()
    },
    host: {
      hostname: hostname(), platform: platform(), release: release(), arch: arch(), cpuModel: cpu[0]?.model ?? 'unknown', cpuCount: cpu.length,
      loadavg: loadavg(), totalMemBytes: totalmem(), freeMemBytes: freemem(), uptimeSec: Math.floor(uptime()), disk
    },
    panel: { ...d.core.panel.health(), stats, error }
  }
}
