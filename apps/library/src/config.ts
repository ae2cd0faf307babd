import { z } from 'zod'
import { DAEMON_PORTS, adminAuthEnv, configSnapshotEnv, controlEnv, env, loadConfig, loggingEnv, socketBufferEnv, swarmEnv, type Env } from '@arus/service'

/**
 * The library's environment (spec 2 "Library environment"): one schema gives validation, types
 * and docs/library.md. Parsed once at boot; an invalid value aborts boot naming the variable.
 */
export const libraryEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/library', min: 1 }).describe('Directory holding the feed store, titles.json and the private files (content keys, admins).'),
  PANEL_PUBKEY: env.hex({ bytes: 32, optional: true }).describe('The panel public key (`arus-panel init` prints it). Unset: titles ingest and seed but nothing is registered.'),
  PUBLISHER_NAME: env.str({ optional: true, min: 1, max: 64 }).describe('The library\'s enrolled publisher name (`arus-panel add-publisher library --scopes <title globs>`); registers carry it and obey its scopes. Unset = the legacy shared key.'),
  PUBLISHER_KEY: env.hex({ bytes: 64, optional: true }).describe('Ed25519 secret key that signs registers: the enrolled site key or, without PUBLISHER_NAME, the legacy shared key.'),
  HLS_TIME: env.int({ min: 1, max: 30, default: 4 }).describe('Default segment length in seconds of a title (a title may set its own hlsTime).'),
  INGEST_CONCURRENCY: env.int({ min: 1, max: 16, default: 1 }).describe('Titles ingested at once (a 720p transcode takes about 1.7 cores here, docs/benchmarks.md); the rest wait queued.'),
  INGEST_NICE: env.int({ min: 0, max: 19, default: 19 }).describe('Niceness of the ingest\'s ffmpeg and ffprobe (docs/library.md "Ingest priority"): a title\'s transcode is batch work, so live encoders (a broadcaster\'s default is 10) and the daemons on the same box get a busy core first; `0` runs it at the default priority.'),
  ...swarmEnv,
  ...socketBufferEnv,
  ...adminAuthEnv,
  ...controlEnv('CONTROL', { port: DAEMON_PORTS.library, what: 'control API and UI (docs/library.md)' }),
  ...configSnapshotEnv,
  ...loggingEnv
})

export type LibraryConfig = ReturnType<typeof loadLibraryConfig>

export function loadLibraryConfig (source: Env = process.env) {
  return loadConfig(libraryEnvSchema, source)
}
