import { z } from 'zod'
import {
  DEFAULT_MAX_PEERS, DEFAULT_RELOOKUP_MAX_MS, DEFAULT_RELOOKUP_MIN_MS, DEFAULT_RESCAN_MS, DEFAULT_STORE_DIR,
  DEFAULT_TUNE_TIMEOUT_MS, SERVER_DEFAULTS, STORAGE_DEFAULTS, ZAP_DEFAULTS
} from './constants.js'
import { SdkError } from './errors.js'

// Spec 3 "createPlayer(opts) options" and "zapPrefetch object keys": one schema gives the
// validation, the defaults and the resolved config type.

const ms = z.number().int().min(0).max(24 * 3600_000)
const positiveMs = z.number().int().min(1).max(24 * 3600_000)
export const HexKey = z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected 64 hex characters (32 bytes)').transform((s) => s.toLowerCase())

export const ZapPrefetchSchema = z.strictObject({
  neighbors: z.number().int().min(1).max(16).default(ZAP_DEFAULTS.neighbors),
  intervalMs: positiveMs.default(ZAP_DEFAULTS.intervalMs),
  directional: z.boolean().default(ZAP_DEFAULTS.directional),
  stallMs: positiveMs.default(ZAP_DEFAULTS.stallMs),
  resumeMs: ms.default(ZAP_DEFAULTS.resumeMs),
  minHeadroom: z.number().min(0).max(1000).default(ZAP_DEFAULTS.minHeadroom)
})
export type ZapConfig = z.output<typeof ZapPrefetchSchema>

export const UploadPolicySchema = z.enum(['reseed', 'client-only'])

const BootstrapNode = z.strictObject({
  host: z.string().min(1).max(255),
  port: z.number().int().min(1).max(65535)
})

const TuneSchema = z.strictObject({
  timeoutMs: positiveMs.default(DEFAULT_TUNE_TIMEOUT_MS),
  relookupMinMs: positiveMs.default(DEFAULT_RELOOKUP_MIN_MS),
  relookupMaxMs: positiveMs.optional(),
  rescanMs: ms.default(DEFAULT_RESCAN_MS)
}).transform((t, ctx) => {
  const relookupMaxMs = t.relookupMaxMs ?? Math.max(DEFAULT_RELOOKUP_MAX_MS, t.relookupMinMs)
  if (relookupMaxMs < t.relookupMinMs) ctx.addIssue({ code: 'custom', path: ['relookupMaxMs'], message: 'must be >= relookupMinMs' })
  return { ...t, relookupMaxMs }
})

const ServerSchema = z.strictObject({
  holdMs: positiveMs.default(SERVER_DEFAULTS.holdMs),
  stallMs: positiveMs.default(SERVER_DEFAULTS.stallMs),
  readAheadSegments: z.number().int().min(0).max(64).default(SERVER_DEFAULTS.readAheadSegments),
  allowOrigin: z.string().min(1).max(2048).nullable().default(SERVER_DEFAULTS.allowOrigin)
})

export const PlayerInitSchema = z.strictObject({
  panelPubKey: HexKey.optional(),
  storeDir: z.string().min(1).default(DEFAULT_STORE_DIR),
  prewarm: z.union([z.boolean(), z.number().int().min(0).max(10_000)]).default(false),
  tune: TuneSchema.prefault({}),
  zapPrefetch: z.union([z.boolean(), ZapPrefetchSchema]).default(false),
  uploadPolicy: UploadPolicySchema.default('reseed'),
  swarm: z.strictObject({
    maxPeers: z.number().int().min(1).max(10_000).default(DEFAULT_MAX_PEERS),
    bootstrap: z.array(BootstrapNode).max(64).optional(),
    warmDial: z.boolean().default(true)
  }).prefault({}),
  server: ServerSchema.prefault({}),
  storage: z.strictObject({
    writeBufferMiB: z.number().int().min(1).max(64).default(STORAGE_DEFAULTS.writeBufferMiB)
  }).prefault({}),
  deviceLabel: z.string().max(64).optional()
})

export type PlayerConfig = z.output<typeof PlayerInitSchema>

/** Parses createPlayer options once; throws SDK_INVALID_OPTIONS naming every bad option. */
export function parsePlayerInit (init: unknown): PlayerConfig {
  if (init !== undefined && (init === null || typeof init !== 'object')) throw SdkError.invalidOptions(['options must be an object'])
  if (init !== undefined && Object.hasOwn(init, 'hybrid')) {
    // Spec 3: 'hybrid' is a legacy CDN-versus-P2P failover harness, "not a product path"; not built here.
    throw SdkError.invalidOptions(['hybrid: the legacy hybrid failover engine is not part of this SDK'])
  }
  const r = PlayerInitSchema.safeParse(init ?? {})
  if (!r.success) throw SdkError.invalidOptions(r.error.issues.map((i) => `${i.path.join('.') || '(options)'}: ${i.message}`))
  return r.data
}

/** A zapPrefetch value (true / object / false) as a resolved config, or null when off. */
export function resolveZap (value: unknown): ZapConfig | null {
  if (value === false || value === undefined || value === null) return null
  const r = ZapPrefetchSchema.safeParse(value === true ? {} : value)
  if (!r.success) throw SdkError.invalidArgument('zapPrefetch', r.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
  return r.data
}
