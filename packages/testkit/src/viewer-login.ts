import {
  computeVerifier, constantTimeEqual, deriveAuthKeyPair, deriveRwd, deriveWrapKey, fromHex, generateSigningKeyPair,
  oprf, openGrant, openSecret, sign, solvePow, toHex
} from '@arus/crypto'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import { sessionSignedBytes, type RpcClient } from '@arus/rpc'

/**
 * The viewer side of login (spec 3 "Authentication" 1), written from docs/rpc-protocol.md, for
 * tests that need many real enrolled devices without an SDK engine each:
 * hello → PoW → OPRF login → read user/<name> from the replicated catalog → finalize →
 * check the Argon2id verifier (a wrong password fails here, client-side) → unseal → session.
 */
export interface ViewerLogin {
  token: string
  expiresAt: number
  tokenVersion: number
  deviceCount: number
  user: UserRecord
  /** streamId → unsealed 32-byte stream key. */
  keys: Map<string, Uint8Array>
}

export class WrongPasswordError extends Error { code = 'WRONG_PASSWORD' }

export async function viewerLogin (rpc: RpcClient, reader: CatalogReader, init: {
  username: string
  password: string
  device?: { publicKey: Uint8Array; secretKey: Uint8Array }
  label?: string
}): Promise<ViewerLogin> {
  const device = init.device ?? generateSigningKeyPair()
  const hello = await rpc.hello()
  const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
  const input = new TextEncoder().encode(init.password)
  const { blind, blindedElement } = oprf.blind(input)
  const reply = await rpc.login({ username: init.username, blinded: toHex(blindedElement), powNonce: toHex(nonce) })
  const output = oprf.finalize(input, blind, fromHex(reply.evaluated, 32))
  const rwd = deriveRwd(output)

  await reader.update({ wait: true })
  const user = await reader.getUser(init.username)
  if (!user) throw new WrongPasswordError('unknown user or wrong password')
  const verifier = await computeVerifier(rwd, fromHex(user.salt, 16), user.argon)
  if (!constantTimeEqual(verifier, fromHex(user.verifier, 32))) throw new WrongPasswordError('unknown user or wrong password')

  const priv = openSecret(deriveWrapKey(rwd), user.encPriv)
  const auth = deriveAuthKeyPair(rwd)
  const deviceId = toHex(device.publicKey)
  const msg = sessionSignedBytes(fromHex(reply.sessionChallenge, 32), init.username, deviceId)
  const session = await rpc.session({
    username: init.username,
    deviceId,
    ...(init.label !== undefined ? { label: init.label } : {}),
    authSig: toHex(sign(msg, auth.secretKey)),
    deviceSig: toHex(sign(msg, device.secretKey))
  })
  const keys = new Map<string, Uint8Array>()
  for (const [id, sealed] of Object.entries(user.wrapped)) keys.set(id, openGrant(sealed, fromHex(user.pub, 32), priv))
  return { ...session, user, keys }
}
