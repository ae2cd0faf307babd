import { createActivity, createAdminRegistry, type Activity, type AdminRegistry, type Logger } from '@arus/service'
import { createConfigSnapshots, type ConfigSnapshots } from '@arus/config-snapshots'
import { panelConfigSections } from './config-sections.js'
import type { PanelCore, PanelSettings } from './context.js'
import type { PanelPaths } from './paths.js'

/**
 * The panel's audit sink and admin accounts, both from the daemon kit. The activity ring
 * (spec 1 "Events" 3) keeps these context fields besides the kit's own; never a key,
 * password, token, or (for reports) the user behind one.
 */
export const PANEL_ACTIVITY_FIELDS = ['streamId', 'username', 'publisher', 'scopes', 'slug', 'redirect', 'maxDevices', 'package', 'source', 'outcome', 'retryAfter', 'channel', 'category', 'alert', 'group'] as const

export function panelActivity (log: Logger): Activity {
  return createActivity(log, { fields: PANEL_ACTIVITY_FIELDS })
}

/** The admin accounts; removing one takes a config snapshot first (`beforeDestructive`). */
export function panelAdmins (paths: PanelPaths, settings: PanelSettings, components: { activity: Activity; beforeDestructive: (what: string) => Promise<unknown> }): AdminRegistry {
  return createAdminRegistry(components, { path: paths.admins, argon: settings.argon })
}

/** The panel's config snapshots over `core` (sections: config-sections.ts). */
export function panelSnapshots (core: PanelCore): ConfigSnapshots {
  return createConfigSnapshots({
    service: 'panel',
    dir: core.paths.configSnapshots,
    keep: core.settings.snapshots.keep,
    ...(core.settings.snapshots.backupDir !== undefined ? { backupDir: core.settings.snapshots.backupDir } : {}),
    sections: panelConfigSections(core),
    log: core.log,
    activity: core.activity
  })
}
