import { createActivity, createAdminRegistry, type Activity, type AdminRegistry, type ControlSettings, type Logger } from '@arus/service'

/** The library's audit sink and control admins, both from the daemon kit (private/admins.json). */
export const LIBRARY_ACTIVITY_FIELDS = ['title'] as const

export function libraryActivity (log: Logger): Activity {
  return createActivity(log, { fields: LIBRARY_ACTIVITY_FIELDS })
}

/** The control admins; removing one takes a config snapshot first (`beforeDestructive`). */
export function libraryAdmins (path: string, control: Pick<ControlSettings, 'argon'>, components: { activity: Activity; beforeDestructive: (what: string) => Promise<unknown> }): AdminRegistry {
  return createAdminRegistry(components, { path, argon: control.argon })
}
