import { mkdir } from 'node:fs/promises'
import { createLogger, type Logger } from '@arus/service'
import { loadPanelConfig, panelSettings, type PanelConfig } from '../config.js'
import type { PanelContext } from '../context.js'
import { loadIdentity } from '../identity.js'
import { openPanel } from '../open.js'
import { panelPaths } from '../paths.js'
import { openRegistries } from '../registries.js'
import type { CliIO } from '@arus/service'

/**
 * Config + a logger. One-shot commands log warnings to stderr (stdout carries their
 * output); the daemon (`daemon: true`) logs at LOG_LEVEL (default info) to stdout.
 */
export function cliBase (io: CliIO, opts: { daemon?: boolean } = {}): { config: PanelConfig; log: Logger } {
  const config = loadPanelConfig(io.env)
  const level = opts.daemon || io.env.LOG_LEVEL ? config.LOG_LEVEL : 'warn'
  const log = createLogger({ name: 'arus-panel', level, format: config.LOG_FORMAT, destination: opts.daemon ? io.stdout : io.stderr })
  return { config, log }
}

/** Runs `fn` with the store open; fails with ELOCKED while a panel runs. */
export async function withStore<T> (io: CliIO, fn: (ctx: PanelContext) => Promise<T>): Promise<T> {
  const { config, log } = cliBase(io)
  const opened = await openPanel(config.DATA_DIR, panelSettings(config), log)
  try {
    return await fn(opened.ctx)
  } finally {
    await opened.close()
  }
}

/** Registry-only commands: private files only, safe beside a running panel. */
export async function withRegistries<T> (io: CliIO, fn: (ctx: Pick<PanelContext, 'registries' | 'settings' | 'log' | 'identity'>) => Promise<T>): Promise<T> {
  const { config, log } = cliBase(io)
  const paths = panelPaths(config.DATA_DIR)
  const identity = await loadIdentity(paths)
  await mkdir(paths.privateDir, { recursive: true, mode: 0o700 })
  return fn({ registries: openRegistries(paths), settings: panelSettings(config), log, identity })
}
