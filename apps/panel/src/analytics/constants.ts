/**
 * Defaults of the panel's aggregate analytics (spec 1 "What the service does" 6, "Analytics",
 * Limits "analytics days default 7, capped at retention").
 */

/** Version of a day file under DATA_DIR/analytics (bumped on any change of its layout). */
export const ANALYTICS_FILE_VERSION = 1

/** Version of the day salt file in the private dir. */
export const ANALYTICS_SALT_VERSION = 1

/** Days GET /api/analytics returns without `days` (spec 1 Limits), capped at the retention. */
export const DEFAULT_QUERY_DAYS = 7

/**
 * How often the swarm connection count is sampled and the in-progress hour flushed: a kill -9
 * loses at most this much of the counts.
 */
export const SAMPLE_INTERVAL_MS = 60_000

/**
 * Distinct viewers counted exactly per day; past this the day's set turns into a HyperLogLog
 * (about 0.8 % standard error) so memory and the day file stay bounded.
 */
export const EXACT_VIEWERS_CAP = 50_000

/**
 * Bytes kept of each salted viewer hash: 64 bits make a collision among 50,000 viewers a
 * one-in-ten-billion event, so small counts are exact.
 */
export const VIEWER_HASH_BYTES = 8

/** HyperLogLog precision: 2^14 one-byte registers (16 KiB). */
export const HLL_PRECISION = 14
