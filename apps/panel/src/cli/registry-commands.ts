import type { Command } from 'commander'
import { addPublisher, EnrollBody, listPublishers, PublisherStatusBody, removePublisher, setPublisherScopes, setPublisherStatus } from '../ops/publishers.js'
import { withRegistries } from './context.js'
import { parseInput, type DaemonCli } from '@arus/service'

const globs = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean)

/** Publishers: private registries only, so they work beside a running panel. */
export function registryCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli

  program.command('add-publisher <name>').description('enroll a publishing site: prints its secret key once (its PUBLISHER_KEY)')
    .option('--scopes <globs>', 'comma-separated stream-id globs', '*')
    .action(async (name: string, o: { scopes: string }) => {
      const input = parseInput(EnrollBody, { name, scopes: globs(o.scopes) }, 'options')
      const p = await withRegistries(io, (ctx) => addPublisher(ctx, input))
      out(p, `publisher ${name} enrolled (scopes ${p.scopes.join(',')})\nPUBLISHER_NAME=${name}\nPUBLISHER_KEY=${p.secretKey}  (secret, shown once)`)
    })
  program.command('list-publishers').description('enrolled publishers')
    .action(async () => {
      const list = await withRegistries(io, (ctx) => listPublishers(ctx))
      out({ publishers: list }, list.map((p) => `${p.name}  ${p.status}  scopes ${p.scopes.join(',')}`).join('\n') || '(no publishers)')
    })
  program.command('remove-publisher <name>').description('hard-delete an enrollment')
    .action(async (name: string) => { await withRegistries(io, (ctx) => removePublisher(ctx, name)); out({ deleted: name }, `publisher ${name} removed`) })
  program.command('set-publisher-scopes <name> <globs>').description('replace the scope globs (comma-separated)')
    .action(async (name: string, g: string) => out(await withRegistries(io, (ctx) => setPublisherScopes(ctx, name, globs(g))), `scopes of ${name} set`))
  program.command('set-publisher-status <name> <status>').description('active or revoked')
    .action(async (name: string, s: string) => {
      const { status } = parseInput(PublisherStatusBody, { status: s }, 'options')
      out(await withRegistries(io, (ctx) => setPublisherStatus(ctx, name, status)), `publisher ${name} is ${status}`)
    })
}
