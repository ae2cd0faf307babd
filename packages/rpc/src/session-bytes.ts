import { REKEY_SIGNED_PREFIX, SESSION_SIGNED_PREFIX } from './constants.js'
import { RpcError } from './errors.js'
import { Hex32, Username } from './schema-common.js'
import { toHex, utf8Encode } from './text.js'

/**
 * The bytes both `session` signatures cover (spec 1-panel.md "Authentication" 6):
 * UTF-8 of `'arus/session/v1\n' + hex(sessionChallenge) + '\n' + username + '\n' + deviceIdHex`.
 * `sessionChallenge` and `deviceId` are 32 bytes, given as bytes or lowercase hex.
 * Throws `RPC_INVALID_ARGUMENT` on a wrong length or an invalid username.
 */
export function sessionSignedBytes (sessionChallenge: Uint8Array | string, username: string, deviceId: Uint8Array | string): Uint8Array {
  return utf8Encode(SESSION_SIGNED_PREFIX + sessionLines(sessionChallenge, username, deviceId))
}

/**
 * The bytes both signatures of a `session` request's `rekey` cover (docs/rpc-protocol.md
 * "Re-key"): UTF-8 of `'arus/rekey/v2\n'`, the three session lines, then the new salt, verifier,
 * authPub and encPriv and the record's Argon2id `opslimit` and `memlimit` (the cost the new keys
 * were stretched at), one per line. The session challenge makes it single-use; the cost and the
 * old key's signature make a re-key computed from a stale record fail instead of landing.
 */
export function rekeySignedBytes (
  sessionChallenge: Uint8Array | string, username: string, deviceId: Uint8Array | string,
  rekey: { salt: string; verifier: string; authPub: string; encPriv: string }, argon: { opslimit: number; memlimit: number }
): Uint8Array {
  const fields = [rekey.salt, rekey.verifier, rekey.authPub, rekey.encPriv]
  if (!fields.every((f) => typeof f === 'string' && /^(?:[0-9a-f]{2})+$/.test(f))) throw RpcError.invalidArgument('rekey salt, verifier, authPub and encPriv must be lowercase hex')
  if (!Number.isSafeInteger(argon.opslimit) || !Number.isSafeInteger(argon.memlimit)) throw RpcError.invalidArgument('the Argon2id cost must be whole numbers')
  return utf8Encode(`${REKEY_SIGNED_PREFIX}${sessionLines(sessionChallenge, username, deviceId)}\n${fields.join('\n')}\n${argon.opslimit}\n${argon.memlimit}`)
}

function sessionLines (sessionChallenge: Uint8Array | string, username: string, deviceId: Uint8Array | string): string {
  const challengeHex = hex32(sessionChallenge, 'sessionChallenge')
  const deviceHex = hex32(deviceId, 'deviceId')
  if (!Username.safeParse(username).success) throw RpcError.invalidArgument('username must be a string of 1-64 characters')
  return `${challengeHex}\n${username}\n${deviceHex}`
}

function hex32 (value: Uint8Array | string, name: string): string {
  const hex = value instanceof Uint8Array ? toHex(value) : value
  if (!Hex32.safeParse(hex).success) throw RpcError.invalidArgument(`${name} must be 32 bytes (or 64 lowercase hex characters)`)
  return hex
}
