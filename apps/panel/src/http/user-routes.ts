import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import { ChangedReply, grant, GrantBody, revoke, RevokeReply } from '../ops/grants.js'
import { setUserPackages, UserPackagesBody } from '../ops/packages.js'
import { KeyScheduleReply, keyScheduleStatus, ResetLegacyBody, ResetLegacyReply, resetLegacyUsers } from '../ops/key-schedule.js'
import * as users from '../ops/users.js'
import { CreateUserBody, DevicesReply, ListUsersQuery, MaxDevicesBody, PasswordBody, UserPage, UserStatusBody, UserView } from '../ops/users.js'
import { panelRoute } from './panel-route.js'
import { DeletedReply, DeviceParams, GrantParams, UserParams } from './schemas.js'

/** Users, devices and grants (spec 1 "Users" routes). Every handler is one ops/ call. */
export function userRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'users'
  panelRoute(app, { method: 'GET', url: '/api/users', tag, summary: 'List users, a page at a time (prefix, after, limit → users, next)', query: ListUsersQuery, response: UserPage },
    async ({ query }) => users.listUsers(ctx, query))
  panelRoute(app, { method: 'POST', url: '/api/users', tag, summary: 'Create a user', body: CreateUserBody, response: UserView, status: 201 },
    async ({ body }) => await users.createUser(ctx, body))
  panelRoute(app, { method: 'GET', url: '/api/users/:u', tag, summary: 'Get a user', params: UserParams, response: UserView },
    async ({ params }) => await users.getUser(ctx, params.u))
  panelRoute(app, { method: 'DELETE', url: '/api/users/:u', tag, summary: 'Delete a user record (issued tokens stay valid offline until expiry)', params: UserParams, response: DeletedReply },
    async ({ params }) => { await users.deleteUser(ctx, params.u); return { deleted: params.u } })
  panelRoute(app, { method: 'GET', url: '/api/users/:u/devices', tag, summary: 'Enrolled devices', params: UserParams, response: DevicesReply },
    async ({ params }) => ({ devices: await users.listDevices(ctx, params.u) }))
  panelRoute(app, { method: 'DELETE', url: '/api/users/:u/devices/:deviceId', tag, summary: 'Drop one enrollment (no tokenVersion bump)', params: DeviceParams, response: DeletedReply },
    async ({ params }) => { await users.logoutDevice(ctx, params.u, params.deviceId); return { deleted: params.deviceId } })
  panelRoute(app, { method: 'POST', url: '/api/users/:u/password', tag, summary: 'Rotate the password: re-seals grants, ends every session', params: UserParams, body: PasswordBody, response: UserView },
    async ({ params, body }) => await users.setPassword(ctx, params.u, body.password))
  panelRoute(app, { method: 'POST', url: '/api/users/:u/status', tag, summary: "Set status 'active' or 'disabled' (disabling revokes sessions)", params: UserParams, body: UserStatusBody, response: UserView },
    async ({ params, body }) => await users.setStatus(ctx, params.u, body.status))
  panelRoute(app, { method: 'POST', url: '/api/users/:u/logout-all', tag, summary: 'End every session (bumps tokenVersion)', params: UserParams, response: UserView },
    async ({ params }) => await users.logoutAll(ctx, params.u))
  panelRoute(app, { method: 'POST', url: '/api/users/:u/max-devices', tag, summary: 'Set the concurrent device limit {maxDevices} (bumps tokenVersion)', params: UserParams, body: MaxDevicesBody, response: UserView },
    async ({ params, body }) => await users.setMaxDevices(ctx, params.u, body.maxDevices))
  panelRoute(app, { method: 'POST', url: '/api/users/:u/grants', tag, summary: 'Grant a stream (seals its key to the user)', params: UserParams, body: GrantBody, response: ChangedReply },
    async ({ params, body }) => grant(ctx, params.u, body.streamId))
  panelRoute(app, { method: 'DELETE', url: '/api/users/:u/grants/:id', tag, summary: 'Remove a manual grant; a package or auto-granting source that still covers the id keeps it (the reply says which)', params: GrantParams, response: RevokeReply },
    async ({ params }) => revoke(ctx, params.u, params.id))
  panelRoute(app, { method: 'POST', url: '/api/users/:u/packages', tag, summary: "Replace the user's packages and materialize the grants at once", params: UserParams, body: UserPackagesBody, response: UserView },
    async ({ params, body }) => { await setUserPackages(ctx, params.u, body.packages); return await users.getUser(ctx, params.u) })
  panelRoute(app, { method: 'GET', url: '/api/key-schedule', tag, summary: 'Login key schedules: how many users are still on schedule 1 (keys without Argon2id), and who', response: KeyScheduleReply },
    async () => await keyScheduleStatus(ctx))
  panelRoute(app, { method: 'POST', url: '/api/key-schedule/reset', tag, summary: 'Force a password reset on every schedule-1 user {confirm: true}: each needs a new password to log in', body: ResetLegacyBody, response: ResetLegacyReply },
    async () => await resetLegacyUsers(ctx))
}
