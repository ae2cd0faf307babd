import { z } from 'zod'
import { DAEMON_PORTS, adminAuthEnv, configSnapshotEnv, controlEnv, env, loadConfig, loggingEnv, ServiceError, socketBufferEnv, swarmEnv, type Env } from '@arus/service'

/** A swarm (Noise) public key in hex. */
const NOISE_KEY = /^[0-9a-f]{64}$/i

/**
 * The broadcaster's environment (spec 2 "Broadcaster environment" plus the daemon kit's
 * knobs): one schema gives validation, types and the table in docs/broadcaster.md.
 * Parsed once at boot; an invalid value aborts boot naming the variable.
 */
export const broadcasterEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/broadcaster', min: 1 }).describe('Directory holding the feed store, channel definitions and the private files (feed keys, admins, control signing key).'),
  ...swarmEnv,
  ...socketBufferEnv,

  PANEL_PUBKEY: env.hex({ bytes: 32, optional: true }).describe('The panel public key (`arus-panel init` prints it). Unset: channels run and seed but nothing is registered.'),
  PUBLISHER_KEY: env.hex({ bytes: 64, optional: true }).describe('Ed25519 secret key that signs registers: the enrolled site key (`arus-panel add-publisher`) or, without PUBLISHER_NAME, the legacy shared key.'),
  PUBLISHER_NAME: env.str({ optional: true, min: 1, max: 64 }).describe('Enrolled publisher name; registers then carry it and obey its scopes. Unset = legacy shared key.'),
  REGISTER_HEARTBEAT_SEC: env.int({ min: 5, max: 86_400, default: 60 }).describe('Every running channel re-registers this often (an unchanged register makes the panel write nothing).'),
  PUBLIC_HOST: env.host('127.0.0.1').describe('Host name publishers push to; used in `ingest.pushUrl` of rtmp/srt/udp channels.'),
  INGEST_BIND: env.host('0.0.0.0').describe('Address the rtmp/srt/udp push listeners bind to.'),

  STREAM_ID: env.str({ optional: true, min: 1, max: 64 }).describe('Legacy env channel: its stream id. With INPUT set, the channel is created at boot (kept in a legacy root store so its feed identity is preserved) and started.'),
  INPUT: env.str({ optional: true, min: 1, max: 4096 }).describe('Legacy env channel: its input, a shorthand (`test`, `rtmp`, a URL, a file path) or a JSON object (`{"kind":"pull","url":"..."}`).'),
  TITLE: env.str({ optional: true, max: 200 }).describe('Legacy env channel: title seeded in the catalog on first register (default: STREAM_ID).'),
  CATEGORY: env.list().describe('Legacy env channel: comma-separated categories seeded on first register.'),

  FEED_BUFFER: env.enum(['disk', 'ram'], 'disk').describe('Default feed buffer of new channels: `disk` keeps the feed identity across restarts; `ram` uses a temp store and mints a new feed identity at each start.'),
  HLS_TIME: env.int({ min: 1, max: 30, default: 4 }).describe('Default segment length (seconds) of new channels.'),
  HLS_LIST_SIZE: env.int({ min: 2, max: 64, default: 6 }).describe('Default playlist window (segments) of new channels.'),
  SLATE_ENABLED: env.bool(true).describe('Loop an offline slate when a source keeps failing, so the channel stays live.'),
  SLATE_AFTER: env.int({ min: 1, max: 100, default: 3 }).describe('Consecutive failed respawns, counted per fallback URL, before the slate goes on air.'),
  SLATE_RETRY_MS: env.int({ min: 500, max: 3_600_000, default: 30_000 }).describe('While slated, probe the real sources this often and drop the slate when one is healthy.'),
  RESPAWN_MIN_MS: env.int({ min: 50, max: 600_000, default: 1000 }).describe('First watchdog backoff after a failed ffmpeg run; doubles per consecutive failure.'),
  RESPAWN_MAX_MS: env.int({ min: 50, max: 3_600_000, default: 30_000 }).describe('Longest watchdog backoff.'),
  STALL_SEC: env.int({ min: 3, max: 3600, default: 20 }).describe('A running ffmpeg that writes no new segment for this long (and at least 3 segment lengths) is restarted.'),
  RESUME_PACE: env.bool(true).describe('Pace the boot resume of desired-running channels (one every RESUME_PACE_MS); 0 restores unpaced resume.'),
  RESUME_PACE_MS: env.int({ min: 0, max: 600_000, default: 1500 }).describe('Delay between two channel starts during a paced boot resume.'),
  ROTATE_GRACE_SEC: env.int({ min: 0, max: 86_400, default: 120 }).describe('After a rotate (or a new generation), the retired feed keeps seeding this long, then its cores are purged.'),
  ORIGIN_PEERS_PER_BLOCK: env.int({ min: 0, max: 64, default: 2 }).describe('Origin upload shaping (docs/architecture.md "Origin egress"): each media block of a live feed is sent at once to this many viewers, who pass it on (the small index blocks always go to everyone); `0` turns shaping off (every viewer may fetch every block from this daemon).'),
  ORIGIN_HOLD_MS: env.int({ min: 0, max: 60_000, default: 1500 }).describe('Origin upload shaping: a request for a media block already sent to ORIGIN_PEERS_PER_BLOCK viewers waits, while one of them is still connected, at most this long for a viewer to serve it, then is answered anyway.'),
  ORIGIN_RELAY_KEYS: env.list().refine((keys) => keys.every((k) => NOISE_KEY.test(k)), 'must be a comma-separated list of 64-character hex keys')
    .describe('Origin upload shaping: swarm public keys of repeaters (`arus-repeater key` prints one); while one is connected, it gets each media block first and viewers\' requests wait for it or are sent to it, and this daemon proves to it that it is the feed\'s origin (docs/deploy.md "Adding repeaters").'),
  ORIGIN_UPLINK_KBIT: env.int({ min: 0, max: 100_000_000, default: 0 }).describe('This box\'s upload rate, kbit/s (docs/architecture.md "Origin egress"): live feeds\' block answers are paced to 85 % of it, repeaters\' first (with ORIGIN_RELAY_KEYS, 90 % of that is kept for a repeater being served), so the link never drops packets from every connection at once (the rest is left to the panel and protocol overhead); `0` does not pace.'),
  FFMPEG_PATH: env.str({ default: 'ffmpeg', min: 1 }).describe('ffmpeg binary.'),
  FFPROBE_PATH: env.str({ default: 'ffprobe', min: 1 }).describe('ffprobe binary.'),
  ENCODER_NICE: env.int({ min: 0, max: 19, default: 10 }).describe('Niceness of every ffmpeg a channel runs (docs/broadcaster.md "Encoder priority"): on a busy box the daemons\' request paths (a panel\'s edits and logins, this daemon\'s feeds) get a core first and the encoders every cycle left; `0` runs them at the default priority.'),

  ANALYTICS_ENABLED: env.bool(true).describe('Keep hourly analytics (peers, egress bytes, respawns per channel; counts only).'),
  ANALYTICS_RETENTION_DAYS: env.int({ min: 1, max: 3650, default: 30 }).describe('UTC days of analytics kept.'),
  ANALYTICS_SAMPLE_SEC: env.int({ min: 1, max: 3600, default: 300 }).describe('Analytics sample interval (spec: 5 minutes).'),

  ...controlEnv('CONTROL', { port: DAEMON_PORTS.broadcaster, what: 'control API and UI' }),
  ...adminAuthEnv,
  ...configSnapshotEnv,
  ...loggingEnv
})

export type BroadcasterConfig = ReturnType<typeof loadBroadcasterConfig>

/** Variables renamed when the control server moved onto the kit's `controlEnv('CONTROL')`: boot names them. */
const RENAMED: Readonly<Record<string, string>> = { LOGIN_VERIFY_TIMEOUT_MS: 'CONTROL_VERIFY_TIMEOUT_MS' }

export function loadBroadcasterConfig (source: Env = process.env) {
  const renamed = Object.keys(RENAMED).filter((name) => source[name] !== undefined && source[name] !== '')
  if (renamed.length > 0) {
    const variables = renamed.map((name) => ({ name, reason: `renamed ${RENAMED[name]!} (the same setting)` }))
    throw ServiceError.invalidConfig(`invalid configuration: ${variables.map((v) => `${v.name}: ${v.reason}`).join('; ')}`, { variables })
  }
  return loadConfig(broadcasterEnvSchema, source)
}
