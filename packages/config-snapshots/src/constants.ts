/**
 * Formats and limits of config snapshots, templates and the backups index.
 * Spec: /work/shared/spec/1-panel.md "Config snapshots, templates, backups (shared by panel,
 * broadcaster, library, reseller)", "Errors" and "Limits" (config snapshots kept).
 */

/** `v` of a snapshot file (`<dir>/<id>.json`). Fixture of v1: test/fixtures/snapshot-v1.json. */
export const SNAPSHOT_FILE_VERSION = 1
/** `kind` of a snapshot file. */
export const SNAPSHOT_FILE_KIND = 'arus-config-snapshot'

/** `version` of a template envelope (GET /api/config/template). */
export const TEMPLATE_VERSION = 1
/** `kind` of a template envelope. */
export const TEMPLATE_KIND = 'arus-config-template'

/**
 * A snapshot id: UTC time to the millisecond, then 6 random hex digits
 * (`20261124T101500123Z-3fa9c2`). Anything else is refused before the filesystem is touched.
 */
export const SNAPSHOT_ID_PATTERN = /^\d{8}T\d{9}Z-[0-9a-f]{6}$/

/** Section names: they are JSON keys in files and templates. */
export const SECTION_NAME_PATTERN = /^[a-z][a-z0-9-]{0,63}$/

/** Longest operator note on a snapshot (control characters are refused). */
export const NOTE_MAX = 200
/** Longest snapshot reason (`before-<what>` is cut to it). */
export const REASON_MAX = 200

/** The `omitted` reason of a whole section left out of templates. */
export const SNAPSHOT_ONLY_REASON = 'snapshot-only: holds entitlements or secrets'

/**
 * Backup freshness. A daily backup job plus two hours of slack is fresh; up to three days
 * (two missed runs) is stale; older is old.
 */
export const BACKUP_FRESH_HOURS = 26
export const BACKUP_STALE_HOURS = 72
/** Most archives listed (newest first). */
export const BACKUPS_LIST_MAX = 200
/** Archive name endings the backups index lists. */
export const BACKUP_EXTENSIONS = ['.tar', '.tar.gz', '.tgz', '.tar.zst', '.tzst', '.tar.xz', '.txz', '.tar.bz2', '.tbz2'] as const
