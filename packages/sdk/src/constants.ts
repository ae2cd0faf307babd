/**
 * Defaults and limits of the viewer engine. Each value cites the spec 3 table it comes from
 * (/work/shared/spec/3-viewer-sdk.md); values marked "Arus" are this implementation's choice
 * where the spec leaves room.
 */

/** "createPlayer(opts) options": storeDir default (a local directory named by the host). */
export const DEFAULT_STORE_DIR = './arus-store'

/** "Limits": tune.timeoutMs — one ladder attempt; three attempts ≈ 90 s before the friendly error. */
export const DEFAULT_TUNE_TIMEOUT_MS = 30_000
/** "Limits": tune.relookupMinMs — first forced DHT re-lookup while tuning. */
export const DEFAULT_RELOOKUP_MIN_MS = 5_000
/** "Limits": relookupMaxMs is "backoff": re-lookups double from the minimum up to this cap (Arus). */
export const DEFAULT_RELOOKUP_MAX_MS = 30_000
/**
 * Mesh refresh (Arus): while a live feed is ready, its DHT topic is looked up again after this
 * long, then at doubling intervals up to MESH_REFRESH_MAX_MS. A lookup only finds the peers
 * announced before it, so viewers that tuned in at the same moment would otherwise never meet
 * (each sees only the origin) and could not fetch blocks from each other.
 */
export const MESH_REFRESH_MIN_MS = 2_000
/** Mesh refresh (Arus): the interval cap, one lookup a minute per playing viewer. */
export const MESH_REFRESH_MAX_MS = 60_000
/** "Limits": tune.rescanMs — zero peers this long while ready forces a rescan; 0 disables. */
export const DEFAULT_RESCAN_MS = 10_000
/** Number of ladder attempts: feed:open, feed:retune, feed:reconnect ("Tune ladder"). */
export const TUNE_ATTEMPTS = 3

/** "Limits": swarm.maxPeers default. */
export const DEFAULT_MAX_PEERS = 64

/** "zapPrefetch object keys" defaults. */
export const ZAP_DEFAULTS = {
  neighbors: 1,
  intervalMs: 4_000,
  directional: true,
  stallMs: 12_000,
  resumeMs: 60_000,
  minHeadroom: 3
} as const

/** "Limits": peers event interval. */
export const PEERS_INTERVAL_MS = 3_000

/** "Login retry pattern for hosts": 30 attempts, 1 s apart. */
export const LOGIN_RETRY_ATTEMPTS = 30
export const LOGIN_RETRY_DELAY_MS = 1_000
/**
 * "Errors": 'not connected to panel' persisting over 30 s means a wrong panel key or an
 * unreachable panel, so the whole retry gives up after this long (each attempt's wait for the
 * panel link is cut to what is left; 30 attempts of a 10 s wait would take 5.5 minutes).
 */
export const LOGIN_RETRY_TOTAL_MS = 30_000

/** "Limits": report cooldown, per channel and category. */
export const REPORT_COOLDOWN_MS = 10 * 60_000
/** "EPG data" defaults. */
export const EPG_DEFAULTS = {
  maxBytes: 8 * 1024 * 1024,
  minRefetchMs: 5 * 60_000,
  maxAgeMs: 3 * 60 * 60_000,
  fetchTimeoutMs: 15_000,
  nextCount: 4
} as const

/** Local HLS serving (ARCHITECTURE.md "Local HLS serving"), Arus defaults. */
export const SERVER_DEFAULTS = {
  /** How long a request for media not yet replicated is held before 404 ("a few seconds"). */
  holdMs: 8_000,
  /** A body read that receives no block for this long is aborted. */
  stallMs: 10_000,
  /** Segments at the live edge requested ahead after each playlist is served. */
  readAheadSegments: 3,
  /**
   * Access-Control-Allow-Origin of every answer. None by default (issue 39): a web page open on
   * the device that finds the port must not read a paid channel's decrypted segments; native
   * players need no CORS. A browser player in a page (hls.js) is an explicit opt-in.
   */
  allowOrigin: null as string | null
}

/**
 * How long a login called while the panel link is still dialing waits for it before it throws
 * 'not connected to panel' (Arus; the host retry pattern still applies after that).
 */
export const LOGIN_PANEL_WAIT_MS = 10_000
/**
 * The replica store (Arus, docs/architecture.md "Viewer memory"): RocksDB's memtable. Media
 * blocks pass through it before a flush writes them to disk, so it bounds how much of the
 * stream stays in memory (RocksDB's default, 64 MiB twice over, held a minute of a 5 Mbit/s
 * stream); 2 MiB flushes about every 3 s at 5 Mbit/s, and RocksDB keeps at most two memtables.
 */
export const STORAGE_DEFAULTS = {
  writeBufferMiB: 2
} as const
/** How long login waits for the replicated user record after the OPRF reply (Arus). */
export const LOGIN_CATALOG_WAIT_MS = 15_000
/**
 * How long login waits, after the panel enrolled the device, for the local replica to show it
 * (Arus): sessionLive() right after login() then reads this session, not an older record.
 */
export const LOGIN_ENROLL_WAIT_MS = 5_000
/** How long connect() waits for the local catalog replica to open (Arus). */
export const CATALOG_READ_TIMEOUT_MS = 10_000

/** Layout of storeDir: the disposable replica lives in a subdirectory so a purge keeps the device key. */
export const STORE_SUBDIR = 'corestore'
export const DEVICE_FILE = 'device.json'
/** Version of device.json (Arus local format). */
export const DEVICE_FILE_VERSION = 1

/** Hypercore's discovery-key namespace (hypercore-crypto `discoveryKey`): BLAKE2b-256 keyed by the core key. */
export const DISCOVERY_NAMESPACE = 'hypercore'
