import type { FastifyInstance } from 'fastify'
import { ensurePrivateDir, listenControlServer, loadSigningKey, type Logger } from '@arus/service'
import { settleAll, settleRenews } from './accounts/settle.js'
import { resellerControlSettings, type ResellerConfig } from './config.js'
import type { ResellerCore } from './core.js'
import { loadBranding } from './branding.js'
import { buildResellerServer } from './http/server.js'
import { acquireDaemonLock } from './lock.js'
import { createResellerMetrics } from './metrics.js'
import { openCore } from './open.js'
import { createReconciler } from './ops/reconcile.js'
import { createSweeper } from './ops/sweep.js'
import { resellerPaths } from './paths.js'
import { resellerSnapshots } from './snapshots.js'
import { healthExtras } from './status.js'

/** A running reseller; `close` tears down in reverse order. */
export interface RunningReseller {
  core: ResellerCore
  control: FastifyInstance
  controlUrl: string
  log: Logger
  close(): Promise<void>
}

/** The reseller's composition root. */
export async function main (config: ResellerConfig, log: Logger): Promise<RunningReseller> {
  const startedAt = Date.now()
  const paths = resellerPaths(config.DATA_DIR)
  const branding = await loadBranding(config)
  await ensurePrivateDir(config.DATA_DIR)
  // Taken before anything is opened for writing (the ledger's torn-tail cut included).
  const unlock = await acquireDaemonLock(paths.lock)
  let core: ResellerCore
  try {
    core = await openCore(config, log)
  } catch (err) {
    await unlock()
    throw err
  }
  const totals = core.ledger.check()
  log.info({ event: 'ledger.open', seq: totals.seq, invariantOk: totals.invariantOk, outstanding: totals.outstanding }, 'ledger verified')
  if (!core.principals.entries().some(([, p]) => p.role === 'admin')) log.warn({ event: 'reseller.no_admin' }, 'no root admin yet: seed one with `arus-reseller create-admin <name>` (daemon stopped)')

  const sweeper = createSweeper(core)
  const reconciler = createReconciler(core)
  const snapshots = resellerSnapshots(config, paths.configSnapshots, { principals: core.principals, accounts: core.accounts, log, activity: core.activity })
  const settings = resellerControlSettings(config)
  const deps = { core, sweeper, reconciler, startedAt, dataDir: config.DATA_DIR }
  const control = buildResellerServer({
    ...deps,
    log,
    webhookSecret: config.WEBHOOK_SECRET,
    metrics: createResellerMetrics(core),
    keys: await loadSigningKey(paths.controlKey),
    snapshots,
    branding,
    health: () => healthExtras(deps),
    settings,
    trustProxyHeader: config.TRUST_PROXY_HEADER,
    allowlist: config.CLIENT_ALLOWLIST
  })
  // Paid renews a crash cut short are local work: applied before anything is served.
  const renewed = await settleRenews(core)
  if (renewed > 0) log.warn({ event: 'reseller.settle', renewed }, 'interrupted renews applied at boot')
  const controlUrl = await listenControlServer(control, { host: settings.host, port: settings.port })

  // Interrupted operations are settled in the background (the panel may be down at boot).
  const settling = settleAll(core).then(
    (r) => { if (r.settled + r.open > 0) log.warn({ event: 'reseller.settle', ...r }, 'interrupted account operations at boot') },
    (err: Error) => log.warn({ event: 'reseller.settle', err: err.message }, 'settling at boot failed; the reconcile retries'))
  // The panel's reachability, logged when it changes (and at the first probe).
  let wasReachable: boolean | null = null
  const probe = async () => {
    const h = await core.panel.probe()
    if (h.reachable === wasReachable) return
    wasReachable = h.reachable
    if (h.reachable) log.info({ event: 'panel.reachable', url: h.url }, 'panel reachable')
    else log.warn({ event: 'panel.unreachable', url: h.url, err: h.lastError }, 'panel unreachable: check PANEL_ADMIN_URL and that the panel runs with ADMIN_ENABLED=1')
  }
  void probe()
  const timers = [
    setInterval(() => { void probe() }, config.PANEL_PROBE_SEC * 1000),
    setInterval(() => { void sweeper.run().catch(() => {}) }, config.SWEEP_INTERVAL_SEC * 1000),
    setInterval(() => { void reconciler.run().catch(() => {}) }, config.RECONCILE_INTERVAL_SEC * 1000)
  ]
  for (const t of timers) t.unref()
  log.info({ event: 'reseller.ready', controlUrl, principals: core.principals.size, accounts: core.accounts.size }, 'reseller ready')

  return {
    core,
    control,
    controlUrl,
    log,
    async close () {
      for (const t of timers) clearInterval(t)
      await control.close()
      await settling
      await core.ledger.close()
      await core.panel.close()
      await unlock()
    }
  }
}
