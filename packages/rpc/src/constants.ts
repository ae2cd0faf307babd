/**
 * Wire constants of the panel RPC.
 *
 * Spec: /work/shared/spec/1-panel.md "Peer-to-peer RPC" and "Authentication" 6–7;
 * ARCHITECTURE.md "RPC". The protocol document is docs/rpc-protocol.md.
 */

/**
 * Version of every RPC request and reply object (`v` field). Bump only with a
 * new docs/rpc-protocol.md section; spec 1-panel.md "Peer-to-peer RPC".
 */
export const PROTOCOL_VERSION = 1 as const

/** Largest raw request frame value a responder parses (64 KiB); larger → `too-large`. */
export const MAX_REQUEST_BYTES = 64 * 1024

/** Largest register payload text, in UTF-8 bytes (16 KiB). */
export const MAX_REGISTER_PAYLOAD_BYTES = 16 * 1024

/** Client request timeout when none is given. */
export const DEFAULT_TIMEOUT_MS = 10_000

/** Longest `detail` string the responder puts in an `invalid-request` reply. */
export const MAX_DETAIL_CHARS = 200

/** Domain-separation prefix of the session signed bytes (first line). */
export const SESSION_SIGNED_PREFIX = 'arus/session/v1\n'
/** Domain-separation prefix of the re-key signed bytes (first line). */
export const REKEY_SIGNED_PREFIX = 'arus/rekey/v2\n'
