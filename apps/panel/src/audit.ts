import { createActivity, createAdminRegistry, type Activity, type AdminRegistry, type Logger } from '@arus/service'
import type { PanelSettings } from './context.js'
import type { PanelPaths } from './paths.js'

/**
 * The panel's audit sink and admin accounts, both from the daemon kit. The activity ring
 * (spec 1 "Events" 3) keeps these context fields besides the kit's own; never a key,
 * password, token, or (for reports) the user behind one.
 */
export const PANEL_ACTIVITY_FIELDS = ['streamId', 'username', 'publisher', 'scopes', 'slug', 'redirect', 'maxDevices'] as const

export function panelActivity (log: Logger): Activity {
  return createActivity(log, { fields: PANEL_ACTIVITY_FIELDS })
}

export function panelAdmins (paths: PanelPaths, settings: PanelSettings, activity: Activity): AdminRegistry {
  return createAdminRegistry({ activity }, { path: paths.admins, argon: settings.argon })
}
