import { cliLogger, ensurePrivateDir, type CliIO, type Logger } from '@arus/service'
import { panelActivity, panelAdmins } from '../audit.js'
import { loadPanelConfig, panelSettings, type PanelConfig } from '../config.js'
import type { PanelContext } from '../context.js'
import { loadIdentity } from '../identity.js'
import { openPanel } from '../open.js'
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

/** What registry-only commands touch: private files only, safe beside a running panel. */
export type RegistryCtx = Pick<PanelContext, 'registries' | 'admins' | 'settings' | 'log' | 'activity' | 'identity'>

/** Registry-only commands: private files only, safe beside a running panel. */
export async function withRegistries<T> (io: CliIO, fn: (ctx: RegistryCtx) => Promise<T>): Promise<T> {
  const { config, log } = cliBase(io)
  const paths = panelPaths(config.DATA_DIR)
  const identity = await loadIdentity(paths)
  await ensurePrivateDir(paths.privateDir)
  const settings = panelSettings(config)
  const activity = panelActivity(log)
  return fn({ registries: openRegistries(paths), admins: panelAdmins(paths, settings, activity), settings, log, activity, identity })
}
