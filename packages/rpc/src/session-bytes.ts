import { SESSION_SIGNED_PREFIX } from './constants.js'
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
  const challengeHex = hex32(sessionChallenge, 'sessionChallenge')
  const deviceHex = hex32(deviceId, 'deviceId')
  if (!Username.safeParse(username).success) throw RpcError.invalidArgument('username must be a string of 1-64 characters')
  return utf8Encode(`${SESSION_SIGNED_PREFIX}${challengeHex}\n${username}\n${deviceHex}`)
}

function hex32 (value: Uint8Array | string, name: string): string {
  const hex = value instanceof Uint8Array ? toHex(value) : value
  if (!Hex32.safeParse(hex).success) throw RpcError.invalidArgument(`${name} must be 32 bytes (or 64 lowercase hex characters)`)
  return hex
}
