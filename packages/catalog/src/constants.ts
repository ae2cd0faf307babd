/**
 * Version of every stored catalog record (`v` field). Bump it when a record's shape
 * changes incompatibly; readers skip records whose `v` they do not know.
 * Spec: /work/shared/spec/1-panel.md "Resources and their fields" → "Catalog record",
 * "User record", "Other replicated and private data".
 */
export const RECORD_VERSION = 1

/**
 * Hypercore manifest version of the catalog core. The core key is the hash of the manifest
 * `{ version, signers: [{ publicKey: panelPublicKey }] }`, so it is a pure function of the
 * panel public key. Spec: /work/shared/ARCHITECTURE.md "Panel identity and catalog".
 */
export const CATALOG_MANIFEST_VERSION = 1

// Limits. Spec: /work/shared/spec/1-panel.md "Limits" and the record tables; caps the
// spec leaves open are fixed here and documented in the README.
/** Title cap (the spec's imported-title cut, applied to every title). */
export const TITLE_MAX = 200
export const DESCRIPTION_MAX = 4000
export const CATEGORY_MAX_LENGTH = 64
export const CATEGORY_MAX_ENTRIES = 16
/** https URLs: redirect url, art, epgUrl, apiBase. */
export const URL_MAX = 2048
export const ORDER_MAX = 9999
export const STREAM_ID_MAX = 64
export const USERNAME_MAX = 64
export const SLUG_MAX = 64
export const LABEL_MAX = 64
export const EPG_ID_MAX = 128
export const ORIGIN_MAX = 64
export const SOURCE_NAME_MAX = 64
export const SERVICE_NAME_MAX = 128
export const DEVICE_LABEL_MAX = 64
export const MAX_DEVICES_LIMIT = 100
/** Sealed stream key in user.wrapped: crypto_box_seal overhead (48 B) up to 256 B total. */
export const SEALED_MIN_BYTES = 48
export const SEALED_MAX_BYTES = 256
/** encPriv (nonce ‖ ciphertext) size bounds. */
export const ENC_PRIV_MIN_BYTES = 40
export const ENC_PRIV_MAX_BYTES = 512
export const VOD_PARAMS_MAX = 64
export const VOD_PARAM_KEY_MAX = 64
export const VOD_PARAM_VALUE_MAX = 1024
export const VOD_SOURCE_MAX = 256
/** Largest encoded record the writer stores and the reader accepts. */
export const MAX_RECORD_BYTES = 4 * 1024 * 1024

// Defaults.
/** Reader: how long a read waits for missing blocks from peers. */
export const DEFAULT_READ_TIMEOUT_MS = 10_000
/** Reader: default bound of `update({ wait: true })`. */
export const DEFAULT_UPDATE_TIMEOUT_MS = 10_000
/** listUsers page size: default and maximum. */
export const DEFAULT_LIST_LIMIT = 100
export const MAX_LIST_LIMIT = 1000
/** watchRange: delay before retrying after a failed diff (e.g. a peer left mid-read). */
export const WATCH_RETRY_MS = 1000
/**
 * watchRange: up to this many appends since the last pass are read block by block (each names
 * the key it changed); more (a large batch, a long gap) are diffed tree against tree.
 */
export const WATCH_HISTORY_MAX = 64

/** Bee options shared by writer and reader: UTF-8 keys, canonical JSON bytes as values. */
export const BEE_OPTIONS = { keyEncoding: 'utf-8', valueEncoding: 'binary' } as const
