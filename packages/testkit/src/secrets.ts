import { existsSync, readFileSync, readdirSync } from 'node:fs'
import { join } from 'node:path'

/**
 * Every kind of secret the daemons hold, in one list, read from their data directories (the
 * file layouts of docs/panel.md and docs/broadcaster.md). Tests scan templates, API answers,
 * tool results and logs for each value; a kind added to a daemon is added here.
 */

/** One secret value and where it came from. */
export interface SecretValue { kind: string; value: string }

/** A kind of secret and how to read its values from a daemon's DATA_DIR. */
export interface SecretKind {
  kind: string
  daemon: 'panel' | 'broadcaster' | 'reseller' | 'any'
  /** Values found under `dataDir` (none when the file is absent). */
  read(dataDir: string): string[]
}

const json = (path: string): any => (existsSync(path) ? JSON.parse(readFileSync(path, 'utf8')) : null)
const values = <T>(record: Record<string, T> | undefined | null): T[] => Object.values(record ?? {})

/** The list. Values shorter than 16 characters are never secrets of ours and are left out. */
export const SECRET_KINDS: readonly SecretKind[] = [
  { kind: 'panel signing key', daemon: 'panel', read: (d) => [json(join(d, 'private/identity.json'))?.secretKey] },
  { kind: 'panel OPRF key', daemon: 'panel', read: (d) => [json(join(d, 'private/identity.json'))?.oprfSeed] },
  { kind: 'legacy publisher key', daemon: 'panel', read: (d) => [json(join(d, 'private/identity.json'))?.legacyPublisherSecretKey] },
  { kind: 'reports salt', daemon: 'panel', read: (d) => [json(join(d, 'private/identity.json'))?.reportsSalt] },
  { kind: 'stream key', daemon: 'panel', read: (d) => values<string>(json(join(d, 'private/stream-keys.json'))?.keys) },
  { kind: 'grant group key', daemon: 'panel', read: (d) => values<{ key: string }>(json(join(d, 'private/group-keys.json'))?.groups).map((g) => g.key) },
  { kind: 'admin verifier', daemon: 'any', read: (d) => values<{ verifier: string }>(json(join(d, 'private/admins.json'))?.admins).map((a) => a.verifier) },
  { kind: 'admin salt', daemon: 'any', read: (d) => values<{ salt: string }>(json(join(d, 'private/admins.json'))?.admins).map((a) => a.salt) },
  { kind: 'control signing key', daemon: 'broadcaster', read: (d) => [json(join(d, 'private/control-key.json'))?.secretKey] },
  { kind: 'reseller signing key', daemon: 'reseller', read: (d) => [json(join(d, 'private/control-key.json'))?.secretKey] },
  { kind: 'principal verifier', daemon: 'reseller', read: (d) => values<{ verifier: string }>(json(join(d, 'private/principals.json'))?.principals).map((p) => p.verifier) },
  { kind: 'principal salt', daemon: 'reseller', read: (d) => values<{ salt: string }>(json(join(d, 'private/principals.json'))?.principals).map((p) => p.salt) },
  { kind: 'feed content key', daemon: 'broadcaster', read: (d) => values<{ key: string }>(json(join(d, 'private/feed-keys.json'))?.channels).map((c) => c.key) },
  {
    kind: 'SRT passphrase',
    daemon: 'broadcaster',
    read: (d) => values<{ input: { kind: string; passphrase?: string } }>(json(join(d, 'channels.json'))?.channels).map((c) => c.input.passphrase ?? '')
  },
  {
    // User verifiers, salts and sealed keys live in the catalog; a snapshot file holds them.
    kind: 'user verifier, salt or sealed key (from snapshots)',
    daemon: 'panel',
    read: (d) => {
      const dir = join(d, 'config-snapshots')
      if (!existsSync(dir)) return []
      return readdirSync(dir).filter((f) => f.endsWith('.json')).flatMap((f) => {
        const users = json(join(dir, f))?.sections?.users?.data ?? json(join(dir, f))?.sections?.users ?? {}
        return values<{ verifier: string; salt: string; encPriv: string; wrapped: Record<string, string>; groups?: Record<string, { key: string }> }>(users)
          .flatMap((u) => [u.verifier, u.salt, u.encPriv, ...values(u.wrapped), ...values(u.groups).map((g) => g.key)])
      })
    }
  }
]

/**
 * Every secret value under the given data dirs, plus `extra` (values a test was handed once:
 * passwords, PUBLISHER_KEY, a publisher's secretKey).
 */
export function collectSecrets (dirs: { panel?: string; broadcaster?: string; reseller?: string }, extra: SecretValue[] = []): SecretValue[] {
  const out: SecretValue[] = []
  for (const k of SECRET_KINDS) {
    const from = k.daemon === 'any' ? [dirs.panel, dirs.broadcaster, dirs.reseller] : [dirs[k.daemon]]
    for (const dir of from) {
      if (dir === undefined) continue
      for (const value of k.read(dir)) if (typeof value === 'string' && value.length >= 16) out.push({ kind: k.kind, value })
    }
  }
  return [...out, ...extra.filter((e) => e.value.length >= 8)]
}

/** The secrets that occur in `text` (hex values also in upper case and base64), by kind. */
export function findSecrets (text: string, secrets: readonly SecretValue[]): SecretValue[] {
  return secrets.filter(({ value }) => {
    if (text.includes(value)) return true
    if (/^[0-9a-f]+$/.test(value)) {
      if (text.includes(value.toUpperCase())) return true
      const b64 = Buffer.from(value, 'hex').toString('base64')
      return text.includes(b64.replace(/=+$/, ''))
    }
    return false
  })
}

/**
 * Secrets a daemon is handed in its environment rather than keeping on disk: the report
 * webhook (its path holds the credential), the messenger bot token, the reseller's panel password and
 * top-up webhook secret. Pass the daemon's env;
 * the values go into {@link collectSecrets}' `extra`.
 */
export const ENV_SECRET_VARIABLES: readonly string[] = ['REPORTS_WEBHOOK_URL', 'REPORTS_MSGR_BOT_TOKEN', 'PUBLISHER_KEY', 'PANEL_ADMIN_PASS', 'WEBHOOK_SECRET']

export function envSecrets (env: Record<string, string | undefined>): SecretValue[] {
  const out: SecretValue[] = []
  for (const name of ENV_SECRET_VARIABLES) {
    const value = env[name]
    if (value === undefined || value === '') continue
    out.push({ kind: name, value })
    // A URL's credential is its path: a log line that cut the origin would still leak it.
    if (URL.canParse(value)) { const path = new URL(value).pathname; if (path.length >= 8) out.push({ kind: `${name} path`, value: path }) }
  }
  return out
}
