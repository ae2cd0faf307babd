import type { Command } from 'commander'
import { parseInput, type DaemonCli } from '@arus/service'
import {
  AddPackageBody, addPackage, deletePackageEntry, getPackage, listPackages, PatchPackageBody, removePackage, setPackage, setUserPackages,
  writeNewPackage, writePackagePatch
} from '../ops/packages.js'
import { getUser } from '../ops/users.js'
import { parseBool, storeOrRegistry, withRegistries, withStore, withStoreOrReadView } from './context.js'

const list = (v: string) => v.split(',').map((s) => s.trim()).filter(Boolean)



const PENDING = 'the running panel reconciles its holders within seconds'

/** Packages (spec 1 Admin CLI). Edits and the read-only list/show work beside a running panel; set-user-packages needs the store. */
export function packageCommands (program: Command, cli: DaemonCli): void {
  const { io, out } = cli
  program.command('add-package <name>').description('add a channel package')
    .option('--label <label>').option('--members <list>', 'comma-separated: ids, id globs, category:<slug>, source:<name>')
    .option('--default', 'assign it to every new user')
    .action(async (name: string, o: { label?: string; members?: string; default?: boolean }) => {
      const input = parseInput(AddPackageBody, { name, ...(o.label !== undefined ? { label: o.label } : {}), members: o.members === undefined ? [] : list(o.members), default: o.default === true }, 'options')
      const r = await storeOrRegistry(() => withStore(io, (ctx) => addPackage(ctx, input)), () => withRegistries(io, (ctx) => writeNewPackage(ctx, input)))
      out(r, `package ${name} added`)
    })
  program.command('set-package <name>').description('edit a package; a member change reaches every holder')
    .option('--label <label>', 'empty clears it').option('--members <list>', 'replaces the member list').option('--default <bool>', 'true or false')
    .action(async (name: string, o: { label?: string; members?: string; default?: string }) => {
      const patch = parseInput(PatchPackageBody, {
        ...(o.label !== undefined ? { label: o.label === '' ? null : o.label } : {}),
        ...(o.members !== undefined ? { members: list(o.members) } : {}),
        ...(o.default !== undefined ? { default: parseBool('default', o.default) } : {})
      }, 'options')
      const r = await storeOrRegistry(
        () => withStore(io, (ctx) => setPackage(ctx, name, patch)),
        async () => ({ ...(await withRegistries(io, (ctx) => writePackagePatch(ctx, name, patch))).entry, pending: PENDING }))
      out(r, `package ${name} updated`)
    })
  program.command('remove-package <name>').description('remove a package; only the grants it alone covered go')
    .action(async (name: string) => {
      await storeOrRegistry(() => withStore(io, (ctx) => removePackage(ctx, name)), async () => {
        await withRegistries(io, async (ctx) => {
          await ctx.snapshots.beforeDestructive(`remove package ${name}`)
          await deletePackageEntry(ctx, name)
        })
      })
      out({ deleted: name }, `package ${name} removed`)
    })
  program.command('list-packages').description('packages with resolved channel and holder counts (read-only: works beside a running panel)')
    .action(async () => {
      const packages = await withStoreOrReadView(io, (ctx) => listPackages(ctx))
      out({ packages }, packages.map((p) => `${p.name}${p.default ? ' (default)' : ''}  ${p.channelCount} channels  ${p.holders} holders  ${p.members.join(',') || '-'}`).join('\n') || '(no packages)')
    })
  program.command('show-package <name>').description('a package with the ids its members resolve to (read-only: works beside a running panel)')
    .action(async (name: string) => {
      const p = await withStoreOrReadView(io, (ctx) => getPackage(ctx, name))
      out(p, `${p.name}${p.label ? ` "${p.label}"` : ''}: ${p.channels.join(', ') || '(no channels)'}`)
    })
  program.command('set-user-packages <username> [names]').description("replace a user's packages (comma-separated; empty clears) and materialize grants (needs the store)")
    .action(async (username: string, names: string | undefined) => {
      const r = await withStore(io, async (ctx) => { await setUserPackages(ctx, username, list(names ?? '')); return getUser(ctx, username) })
      out(r, `${username} holds ${r.packages.join(', ') || 'no package'}`)
    })
}
