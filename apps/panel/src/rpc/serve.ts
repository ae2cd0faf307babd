import type Corestore from 'corestore'
import type Hyperswarm from 'hyperswarm'
import type { Reports } from '@arus/reports'
import { createRpcResponder } from '@arus/rpc'
import { createLockout } from '@arus/service'
import { createBlobsFiller } from '../blobs.js'
import type { AnalyticsRecorder } from '../analytics/index.js'
import type { PanelContext } from '../context.js'
import type { PanelMetrics } from '../metrics.js'
import { createAuthHandlers } from './auth.js'
import { createRegisterHandler } from './register.js'
import { createReportHandler } from './report.js'

/**
 * The panel's side of every swarm connection: catalog and assets replication plus the RPC
 * responder (hello, login, session, register, and report unless reports are disabled: then
 * the method is not served and callers get 'unknown method'). A register schedules the
 * blobsKey fill.
 */
export function servePanelRpc (ctx: PanelContext, store: Corestore, swarm: Hyperswarm, metrics: PanelMetrics, reports: Reports, analytics: AnalyticsRecorder): { close(): Promise<void> } {
  const throttle = createLockout({ threshold: ctx.settings.lockoutThreshold, windowSeconds: ctx.settings.lockoutSeconds })
  const blobs = createBlobsFiller(ctx, store, swarm)
  const handlers = {
    ...createAuthHandlers(ctx, throttle, metrics, analytics),
    register: createRegisterHandler(ctx, { onFeed: (id, feedKey) => blobs.schedule(id, feedKey) }),
    ...(reports.enabled ? { report: createReportHandler(ctx, reports) } : {})
  }
  swarm.on('connection', (conn) => {
    conn.on('error', () => {})
    store.replicate(conn)
    createRpcResponder(conn, handlers, {
      onError: (err, method) => ctx.log.error({ event: 'rpc.error', method, err: (err as Error).message }, 'rpc handler failed')
    })
  })
  return { close: () => blobs.close() }
}
