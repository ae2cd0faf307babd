import type { ConfigSnapshots } from '@arus/config-snapshots'
import { cliLogger, ensurePrivateDir, type CliIO, type Logger } from '@arus/service'
import { panelActivity, panelAdmins } from '../audit.js'
import { loadPanelConfig, panelSettings, type PanelConfig } from '../config.js'
import type { PanelContext } from '../context.js'
import { PanelError } from '../errors.js'
import { loadIdentity } from '../identity.js'
import { openPanel, openPanelReadView, type PanelReadView } from '../open.js'
import { panelPaths } from '../paths.js'
import { openRegistries } from '../registries.js'

/** Config + a logger (the kit's CLI logger: one-shot commands warn on stderr, the daemon logs to stdout). */
export function cliBase (io: CliIO, opts: { daemon?: boolean } = {}): { config: PanelConfig; log: Logger } {
  const config = loadPanelConfig(io.env)
  const log = cliLogger(io, { name: 'arus-panel', daemon: opts.daemon === true, level: config.LOG_LEVEL, format: config.LOG_FORMAT })
  return { config, log }
}

/** Runs `fn` with the store open; fails with ELOCKED while a panel runs. */
export async function withStore<T> (io: CliIO, fn: (ctx: PanelContext) => Promise<T>): Promise<T> {
  const { config, log } = cliBase(io)
  const opened = await openPanel(config.DATA_DIR, panelSettings(config), { log, activity: panelActivity(log) })
  try {
    return await fn(opened.ctx)
  } finally {
    await opened.close()
  }
}

/** The pre-destructive snapshot of a registry-only command: see {@link cliSnapshotter}. */
export interface Snapshotter { beforeDestructive(what: string): Promise<unknown> }

/** What registry-only commands touch: private files only, safe beside a running panel. */
export type RegistryCtx = Pick<PanelContext, 'registries' | 'admins' | 'settings' | 'log' | 'activity' | 'identity'> & { snapshots: Snapshotter }

/**
 * Registry-only commands run beside a running panel, which holds the store a snapshot reads.
 * Stopped panel: the snapshot is taken as by the daemon. Running panel: the change goes ahead
 * with a warning naming the way to get one (the admin API snapshots before the same change).
 */
function cliSnapshotter (io: CliIO, log: Logger): Snapshotter {
  return {
    async beforeDestructive (what) {
      try {
        return await withStore(io, (ctx) => ctx.snapshots.beforeDestructive(what))
      } catch (err) {
        if ((err as { code?: unknown }).code !== 'PANEL_ELOCKED') throw err
        log.warn({ event: 'config.snapshot.skipped', reason: `before-${what}` }, 'the running panel holds the store: no config snapshot before this change (the admin API takes one; or run `arus-panel config snapshot` while it is stopped)')
        return null
      }
    }
  }
}

/** The config commands' handle: the opened panel's snapshots (the store must be free: stop the panel). */
export async function openConfig (io: CliIO): Promise<{ snapshots: ConfigSnapshots; close(): Promise<void> }> {
  const { config, log } = cliBase(io)
  const opened = await openPanel(config.DATA_DIR, panelSettings(config), { log, activity: panelActivity(log) })
  return { snapshots: opened.ctx.snapshots, close: () => opened.close() }
}

/** Registry-only commands: private files only, safe beside a running panel. */
export async function withRegistries<T> (io: CliIO, fn: (ctx: RegistryCtx) => Promise<T>): Promise<T> {
  const { config, log } = cliBase(io)
  const paths = panelPaths(config.DATA_DIR)
  const identity = await loadIdentity(paths)
  await ensurePrivateDir(paths.privateDir)
  const settings = panelSettings(config)
  const activity = panelActivity(log)
  const snapshots = cliSnapshotter(io, log)
  const admins = panelAdmins(paths, settings, { activity, beforeDestructive: (what) => snapshots.beforeDestructive(what) })
  return fn({ registries: openRegistries(paths), admins, settings, log, activity, identity, snapshots })
}

/**
 * Runs `store` with the store open; beside a running panel (PANEL_ELOCKED) runs `registry`,
 * which edits the private files only — the running panel follows (its registry watch and
 * source scheduler).
 */
export async function storeOrRegistry (store: () => Promise<unknown>, registry: () => Promise<unknown>): Promise<unknown> {
  try {
    return await store()
  } catch (err) {
    if ((err as { code?: unknown }).code !== 'PANEL_ELOCKED') throw err
    return registry()
  }
}

/**
 * Read-only commands: `fn` on the opened store; beside a running panel (PANEL_ELOCKED) on a
 * read-only view of it, which needs no lock — the same operation either way.
 */
export async function withStoreOrReadView<T> (io: CliIO, fn: (ctx: PanelContext | Omit<PanelReadView, 'close'>) => Promise<T>): Promise<T> {
  return await storeOrRegistry(() => withStore(io, fn), async () => {
    const { config } = cliBase(io)
    const view = await openPanelReadView(config.DATA_DIR)
    try {
      return await fn(view)
    } finally {
      await view.close()
    }
  }) as T
}

/** A boolean CLI option value: true/1 or false/0, else PANEL_INVALID_INPUT naming the option. */
export function parseBool (name: string, v: string): boolean {
  if (v === 'true' || v === '1') return true
  if (v === 'false' || v === '0') return false
  throw PanelError.invalid(`${name} must be true or false`)
}
