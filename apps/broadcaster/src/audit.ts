import { createActivity, createAdminRegistry, type Activity, type AdminRegistry, type ControlSettings, type Logger } from '@arus/service'

/** The broadcaster's audit sink and control admins, both from the daemon kit (private/admins.json). */
export const BROADCASTER_ACTIVITY_FIELDS = ['channel'] as const

export function broadcasterActivity (log: Logger): Activity {
  return createActivity(log, { fields: BROADCASTER_ACTIVITY_FIELDS })
}

/** The control admins; removing one takes a config snapshot first (`beforeDestructive`). */
export function broadcasterAdmins (path: string, control: Pick<ControlSettings, 'argon'>, components: { activity: Activity; beforeDestructive: (what: string) => Promise<unknown> }): AdminRegistry {
  return createAdminRegistry(components, { path, argon: control.argon })
}
