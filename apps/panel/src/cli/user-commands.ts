import type { Command } from 'commander'
import { PanelError } from '../errors.js'
import { grant, revoke } from '../ops/grants.js'
import { parseUsername } from '../ops/ids.js'
import { keyScheduleStatus, resetLegacyUsers } from '../ops/key-schedule.js'
import * as users from '../ops/users.js'
import { listStreams } from '../ops/streams.js'
import { withStore } from './context.js'
import { parseInput, type DaemonCli } from '@arus/service'

function parseCount (value: string): number {
  if (!/^\d+$/.test(value)) throw PanelError.invalid(`"${value.slice(0, 20)}" is not a whole number`)
  return Number(value)
}

/** Viewer accounts, grants and devices (spec 1 Admin CLI). */
export function userCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli

  program.command('create-user <username>').description('create a viewer account (password from the prompt or stdin)')
    .action(async (u: string) => {
      parseUsername(u)
      const pw = await cli.password()
      out(await withStore(io, (ctx) => users.createUser(ctx, { username: u, password: pw })), `user ${u} created`)
    })
  program.command('set-password <username>').description('rotate a password: re-seals grants, ends every session')
    .action(async (u: string) => {
      const pw = await cli.password()
      out(await withStore(io, (ctx) => users.setPassword(ctx, u, pw)), `password of ${u} rotated`)
    })
  program.command('set-status <username> <status>').description('active or disabled (disabling revokes sessions)')
    .action(async (u: string, s: string) => {
      const { status } = parseInput(users.UserStatusBody, { status: s }, 'options')
      out(await withStore(io, (ctx) => users.setStatus(ctx, u, status)), `${u} is ${status}`)
    })
  program.command('delete-user <username>').description('delete the account record')
    .action(async (u: string) => { await withStore(io, (ctx) => users.deleteUser(ctx, u)); out({ deleted: u }, `user ${u} deleted`) })
  program.command('grant <username> <stream>').description('grant a stream (seals its key to the user)')
    .action(async (u: string, s: string) => out(await withStore(io, (ctx) => grant(ctx, u, s)), `granted ${s} to ${u}`))
  program.command('revoke <username> <stream>').description('remove a grant')
    .action(async (u: string, s: string) => out(await withStore(io, (ctx) => revoke(ctx, u, s)), `revoked ${s} from ${u}`))
  program.command('set-max-devices <username> <n>').description('set the concurrent device limit (ends sessions)')
    .action(async (u: string, n: string) => {
      const { maxDevices } = parseInput(users.MaxDevicesBody, { maxDevices: parseCount(n) }, 'options')
      out(await withStore(io, (ctx) => users.setMaxDevices(ctx, u, maxDevices)), `${u} may use ${maxDevices} devices`)
    })
  program.command('list-devices <username>').description('enrolled devices')
    .action(async (u: string) => {
      const devices = await withStore(io, (ctx) => users.listDevices(ctx, u))
      out({ devices }, devices.map((d) => `${d.deviceId}  ${d.label || '-'}  enrolled ${new Date(d.enrolledAt).toISOString()}  v${d.tokenVersion}`).join('\n') || '(no devices)')
    })
  program.command('logout-device <username> <deviceId>').description('drop one enrollment (no tokenVersion bump)')
    .action(async (u: string, d: string) => { await withStore(io, (ctx) => users.logoutDevice(ctx, u, d)); out({ deleted: d }, `device dropped`) })
  program.command('logout-all <username>').description('bump tokenVersion: every session fails its next online check')
    .action(async (u: string) => out(await withStore(io, (ctx) => users.logoutAll(ctx, u)), `all sessions of ${u} ended`))
  program.command('list').description('users and streams')
    .action(async () => {
      const result = await withStore(io, async (ctx) => ({ users: await users.listAllUsers(ctx), streams: await listStreams(ctx) }))
      const lines = ['users:', ...result.users.map((u) => `  ${u.username}  ${u.status}  packages: ${u.packages.join(',') || '-'}  grants: ${u.grants.join(',') || '-'}`),
        'streams:', ...result.streams.map((s) => `  ${s.id}  ${s.type}  ${s.status}  ${s.redirect ? `redirect ${s.url}` : `feed ${s.feedKey ?? '-'}`}  "${s.title}"`)]
      out(result, lines.join('\n'))
    })
  program.command('key-schedule').description('how many users are still on login key schedule 1 (keys without Argon2id), and who (needs the store)')
    .action(async () => {
      const s = await withStore(io, (ctx) => keyScheduleStatus(ctx))
      const names = s.v1Users.length === 0 ? '' : `\nschedule 1: ${s.v1Users.join(', ')}${s.v1UsersTruncated ? ', …' : ''}`
      out(s, `${s.users} users: ${s.v2} on schedule ${s.current}, ${s.v1} on schedule 1${names}`)
    })
  program.command('reset-legacy-users').description('force a password reset on every schedule-1 user (each needs set-password before it can log in again)')
    .option('--yes', 'confirm: every schedule-1 user loses its password')
    .action(async (opts: { yes?: boolean }) => {
      if (opts.yes !== true) throw PanelError.invalid('reset-legacy-users needs --yes: every schedule-1 user loses its password')
      const r = await withStore(io, (ctx) => resetLegacyUsers(ctx))
      out(r, r.reset.length === 0 ? 'no schedule-1 users' : `reset ${r.reset.length} users: ${r.reset.join(', ')}`)
    })
}
