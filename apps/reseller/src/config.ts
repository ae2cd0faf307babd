import { z } from 'zod'
import { DAEMON_PORTS, adminAuthEnv, configSnapshotEnv, controlEnv, controlSettings, env, loadConfig, loggingEnv, type ControlSettings, type Env } from '@arus/service'
import { parseAllowlist } from './allowlist.js'

const { CONTROL_ENABLED: _enabled, CONTROL_TRUST_PROXY: _trust, ...control } = controlEnv('CONTROL', { port: DAEMON_PORTS.reseller, what: 'reseller API and UI (docs/reseller.md)' })

const headerName = /^[A-Za-z0-9!#$%&'*+.^_`|~-]{1,64}$/

/**
 * The reseller's environment (spec 2 "Reseller environment"), one schema for validation, types
 * and docs/reseller.md. CREDITS_PER_MONTH and CLIENT_ALLOWLIST are ours (the spec leaves a
 * month's price and the allowlist's shape open); the API is always served (it is the service).
 */
export const resellerEnvSchema = z.object({
  DATA_DIR: env.str({ default: './data/reseller', min: 1 }).describe('Directory holding the ledger, accounts.json and the private files (principals, signing key).'),
  PANEL_ADMIN_URL: env.url({ default: `http://127.0.0.1:${DAEMON_PORTS.panel}` }).describe('The panel admin API every account operation calls: the panel\'s ADMIN_HOST:ADMIN_PORT on this box (its default here), or a TLS proxy URL when the panel is on another box.'),
  PANEL_ADMIN_USER: env.str({ min: 1, max: 64, default: 'reseller' }).describe('The panel admin the reseller logs in as (`arus-panel add-admin reseller`): a dedicated account.'),
  PANEL_ADMIN_PASS: env.str({ optional: true, min: 1, max: 1024 }).describe('That panel admin\'s password. Unset: every account operation answers 502 (the panel is unusable).'),
  PANEL_PROBE_SEC: env.int({ min: 1, max: 3600, default: 15 }).describe('How often the panel\'s GET /healthz is asked, so /healthz (`ok`, `panel.reachable`, `panel.lastError`) and the container healthcheck say when the panel is unreachable.'),
  PANEL_TIMEOUT_MS: env.int({ min: 100, max: 300_000, default: 10_000 }).describe('Budget of one panel admin API call; past it the operation answers 502 and any debit is refunded.'),
  DAYS_PER_MONTH: env.int({ min: 1, max: 366, default: 30 }).describe('Days one month of an account buys.'),
  CREDITS_PER_MONTH: env.int({ min: 1, max: 1_000_000, default: 1 }).describe('Credits one month of an account costs (activate and renew); a delete refunds whole remaining months at this price.'),
  TRIAL_HOURS: env.int({ min: 1, max: 8760, default: 24 }).describe('Lifetime of a free trial account.'),
  TRIAL_DAILY_CAP_DEFAULT: env.int({ min: 0, max: 100_000, default: 5 }).describe('Trials a principal may create per UTC day unless its trialDailyCap says otherwise.'),
  MAX_DEVICES_LIMIT_DEFAULT: env.int({ min: 1, max: 100, default: 2 }).describe('Devices per account when no principal up the chain sets maxDevicesLimit.'),
  SWEEP_INTERVAL_SEC: env.int({ min: 1, max: 86_400, default: 60 }).describe('How often expired accounts are disabled on the panel (and renewed ones re-enabled); failures retry at the next sweep.'),
  RECONCILE_INTERVAL_SEC: env.int({ min: 10, max: 604_800, default: 3600 }).describe('How often every account is compared with the panel (existence, status, packages) and interrupted operations are settled.'),
  RECONCILE_REPAIR: env.bool(true).describe('Re-assert drifted packages on the panel during a reconcile (`0` only reports the drift).'),
  ...control,
  TRUST_PROXY_HEADER: env.str({ optional: true }).refine((v) => v === undefined || headerName.test(v), 'must be an HTTP header name such as x-forwarded-for')
    .describe('Header carrying the client address from a trusted reverse proxy on this host (e.g. `x-forwarded-for`; its last entry is used). Keys the login lockout and the allowlist. Use only behind a proxy that sets it.'),
  CLIENT_ALLOWLIST: env.list().refine((v) => parseAllowlist(v) !== null, 'must be a comma-separated list of IP addresses or CIDR blocks (e.g. 203.0.113.0/24,2001:db8::/32)')
    .describe('Client addresses allowed to use the API, UI and webhook (IPs or CIDR blocks, comma-separated), checked before authentication. Empty allows every client; loopback is always allowed.'),
  BRAND_NAME: env.str({ default: 'Arus', min: 1, max: 64 }).describe('Brand name shown on the login page, the title and the header.'),
  BRAND_LOGO_FILE: env.str({ optional: true }).describe('Logo image (PNG, JPEG, WebP, GIF or SVG; at most 1 MiB), served at /branding/logo.'),
  BRAND_FAVICON_FILE: env.str({ optional: true }).describe('Favicon (ICO, PNG or SVG; at most 1 MiB), served at /branding/favicon.'),
  BRAND_LOGIN_BG_FILE: env.str({ optional: true }).describe('Login page background image (at most 4 MiB), served at /branding/login-bg.'),
  BRAND_LOGIN_STYLE: env.enum(['glow', 'plain', 'grid', 'dots', 'stripes'], 'glow').describe('Login page style.'),
  BRAND_THEME_FILE: env.str({ optional: true }).describe('JSON theme `{"accent": "#rrggbb", "background"?, "surface"?, "text"?}` (colours as #rgb or #rrggbb).'),
  WEBHOOK_SECRET: env.str({ optional: true, min: 16, max: 512 }).describe('Enables POST /api/webhooks/credits: the HMAC-SHA256 key of x-topup-signature (at least 16 characters). Unset: the route answers 404.'),
  ...adminAuthEnv,
  ...configSnapshotEnv,
  ...loggingEnv
})

export type ResellerConfig = ReturnType<typeof loadResellerConfig>

export function loadResellerConfig (source: Env = process.env) {
  return loadConfig(resellerEnvSchema, source)
}

/** The kit's control settings: the API is always on; the proxy header replaces CONTROL_TRUST_PROXY. */
export function resellerControlSettings (c: ResellerConfig): ControlSettings {
  return controlSettings({ ...c, CONTROL_ENABLED: true, CONTROL_TRUST_PROXY: false }, 'CONTROL')
}
