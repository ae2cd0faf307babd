import type { Command } from 'commander'
import type { DaemonCli } from '../program.js'
import type { AdminRegistry } from './admins.js'

/**
 * add-admin, remove-admin, set-admin-password, list-admins: the admins file only, so they
 * work beside a running daemon (it re-reads the file at every use). Passwords come from the
 * prompt or the first line of stdin, never from argv.
 */
export function adminCommands (program: Command, cli: DaemonCli, open: () => Promise<AdminRegistry> | AdminRegistry): void {
  program.command('add-admin <name>').description('add an admin account for the HTTP API (password from the prompt or stdin)')
    .action(async (name: string) => {
      const password = await cli.password()
      cli.out(await (await open()).add({ name, password }), `admin ${name} added`)
    })
  program.command('remove-admin <name>').description('remove an admin account (its sessions end)')
    .action(async (name: string) => {
      await (await open()).remove(name)
      cli.out({ deleted: name }, `admin ${name} removed`)
    })
  program.command('set-admin-password <name>').description("rotate an admin's password (ends its sessions)")
    .action(async (name: string) => {
      const password = await cli.password()
      cli.out(await (await open()).setPassword(name, password), `password of admin ${name} rotated`)
    })
  program.command('list-admins').description('admin accounts')
    .action(async () => {
      const admins = await (await open()).list()
      cli.out({ admins }, admins.map((a) => a.name).join('\n') || '(no admins)')
    })
}
