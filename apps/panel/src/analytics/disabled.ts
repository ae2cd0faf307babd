import type { Analytics, AnalyticsComponents, AnalyticsInit, AnalyticsView } from './index.js'
import { EXACT_VIEWERS_CAP } from './constants.js'
import { removeDaySalt } from './day-salt.js'
import { closeStaleDays } from './store.js'

/**
 * ANALYTICS_RETENTION_DAYS=0: nothing is counted or written. What an earlier run left that
 * could still link a viewer (the day salt, an open day's hashes) is erased at ready().
 */
export class DisabledAnalytics implements Analytics {
  readonly enabled = false
  readonly retentionDays = 0
  private opening: Promise<void> | null = null

  constructor (private readonly components: AnalyticsComponents, private readonly init: AnalyticsInit) {}

  ready (): Promise<void> {
    this.opening ??= (async () => {
      await removeDaySalt(this.init.saltFile)
      await closeStaleDays(this.init.dir, null, this.init.exactCap ?? EXACT_VIEWERS_CAP, (date) =>
        this.components.log.warn({ event: 'analytics.unreadable', date }, 'analytics day file unreadable'))
    })()
    return this.opening
  }

  loginSucceeded (): void {}
  loginFailed (): void {}
  sessionIssued (): void {}
  async tick (): Promise<void> {}
  async flush (): Promise<void> {}
  async close (): Promise<void> { await this.opening?.catch(() => {}) }

  async query (): Promise<AnalyticsView> {
    return { enabled: false, retentionDays: 0, days: [], current: null }
  }
}
