import { z } from 'zod'
import { env, loadConfig, loggingEnv, socketBufferEnv, swarmEnv, type Env } from '@arus/service'
import { parseSelection } from './selection.js'

/**
 * The repeater's environment (docs/repeater.md): one schema gives validation, types and the
 * docs. Its only required setting is the panel's public key (plus the DHT's BOOTSTRAP when
 * not on the public DHT). Parsed once at boot; an invalid value aborts boot naming the variable.
 */
export const repeaterEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/repeater', min: 1 }).describe('Directory holding the mirrored cores (ciphertext only), the swarm identity and the mirror list.'),
  PANEL_PUBKEY: env.hex({ bytes: 32 }).describe('The panel public key (`arus-panel init` prints it): the catalog the repeater follows. The repeater has no account and no content key.'),
  CHANNELS: env.str({ default: 'all' }).superRefine((v, ctx) => {
    const sel = parseSelection(v)
    if (typeof sel === 'string') ctx.addIssue({ code: 'custom', message: sel })
  }).describe('What it mirrors: `all`, `none`, stream ids `a,b,c`, or `category:<name>[,<name>…]` (live channels and VOD titles alike).'),
  RETENTION_SECONDS: env.int({ min: 10, max: 86_400, default: 300 }).describe('How long a live channel\'s blocks are kept after they arrive (a moving window; may exceed the origin\'s own window).'),
  MAX_DISK_MB: env.int({ min: 1, max: 16_777_216, default: 10_240 }).describe('Disk budget of everything mirrored, in MiB: past it the coldest is evicted first (a VOD title whole, a live channel\'s oldest blocks).'),
  PANEL_DATA: env.bool(false).describe('Hold the panel\'s catalog core in full, so viewers\' pre-login catalog reads complete while the panel\'s own replication is down.'),
  ASSETS: env.bool(false).describe('Mirror the panel\'s art drive (public posters and logos, not counted in MAX_DISK_MB), so viewers connected to the repeater fetch art from it.'),
  ANNOUNCE: env.bool(false).describe('Announce on the panel\'s topic too, so cold viewers find the repeater before any feed topic. This publishes the box\'s address on the panel\'s topic in the DHT.'),
  STATUS_PORT: env.int({ min: 0, max: 65_535, default: 0 }).describe('Loopback port of `GET /healthz` and `GET /metrics`; `0` (default) opens no listening socket.'),
  ...swarmEnv,
  ...socketBufferEnv,
  ...loggingEnv
})

export type RepeaterConfig = ReturnType<typeof loadRepeaterConfig>

export function loadRepeaterConfig (source: Env = process.env) {
  return loadConfig(repeaterEnvSchema, source)
}
