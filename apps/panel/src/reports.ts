import { createReports, reportsSettings, type Reports } from '@arus/reports'
import type { Logger } from '@arus/service'
import type { PanelConfig } from './config.js'
import type { PanelCore } from './context.js'
import { METRICS_PREFIX, type PanelMetrics } from './metrics.js'
import { panelPaths } from './paths.js'

/**
 * The panel's problem reports (@arus/reports) from the REPORTS_* env: under DATA_DIR/reports,
 * pseudonyms keyed with the identity's reports salt, metrics on the panel's registry. A
 * messenger half without the other is ignored with a warning (spec 1 "Events").
 */
export function panelReports (config: PanelConfig, ctx: Pick<PanelCore, 'identity' | 'activity' | 'settings'>, metrics: PanelMetrics, log: Logger): Reports {
  const { settings, ignored } = reportsSettings(config)
  if (ignored !== null) log.warn({ event: 'reports.notify.half-configured', variable: ignored }, `${ignored} is set without its pair: the messenger target is ignored`)
  return createReports(
    { log, activity: ctx.activity, metrics: { registry: metrics.registry, prefix: METRICS_PREFIX } },
    { dir: panelPaths(config.DATA_DIR).reports, salt: ctx.identity.reportsSalt, serviceName: ctx.settings.serviceName, settings }
  )
}

/** The report commands' view of the env (they run beside a running panel; no store access). */
export function reportCommandsEnv (config: PanelConfig, log: Logger) {
  return { dir: panelPaths(config.DATA_DIR).reports, settings: reportsSettings(config).settings, serviceName: config.SERVICE_NAME, log }
}
