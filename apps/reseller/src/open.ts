import { ensurePrivateDir, type Logger } from '@arus/service'
import { AccountStore } from './accounts/store.js'
import { resellerActivity } from './audit.js'
import { resellerControlSettings, type ResellerConfig } from './config.js'
import type { ResellerCore } from './core.js'
import { KeyedLock } from './keyed-lock.js'
import { Ledger } from './ledger/ledger.js'
import { createPanelClient } from './panel/client.js'
import { resellerPaths } from './paths.js'
import { PrincipalStore } from './principals/store.js'

/**
 * Opens the reseller's state: principals, accounts and the ledger (recovered and verified).
 * The daemon opens it for writing; CLI commands open it read-only beside a running daemon,
 * or for writing while it is stopped.
 */
export async function openCore (config: ResellerConfig, log: Logger, init: { readOnly?: boolean } = {}): Promise<ResellerCore> {
  const paths = resellerPaths(config.DATA_DIR)
  if (init.readOnly !== true) {
    await ensurePrivateDir(config.DATA_DIR)
    await ensurePrivateDir(paths.privateDir)
  }
  const settings = resellerControlSettings(config)
  return {
    settings: {
      daysPerMonth: config.DAYS_PER_MONTH,
      creditsPerMonth: config.CREDITS_PER_MONTH,
      trialHours: config.TRIAL_HOURS,
      trialDailyCapDefault: config.TRIAL_DAILY_CAP_DEFAULT,
      maxDevicesLimitDefault: config.MAX_DEVICES_LIMIT_DEFAULT,
      reconcileRepair: config.RECONCILE_REPAIR,
      argon: settings.argon
    },
    principals: await PrincipalStore.open(paths.principals),
    accounts: await AccountStore.open(paths.accounts),
    ledger: await Ledger.open(paths.ledger, log, { readOnly: init.readOnly === true }),
    panel: createPanelClient({ url: config.PANEL_ADMIN_URL, user: config.PANEL_ADMIN_USER, pass: config.PANEL_ADMIN_PASS, timeoutMs: config.PANEL_TIMEOUT_MS, log }),
    log,
    activity: resellerActivity(log),
    accountLock: new KeyedLock(),
    now: Date.now
  }
}
