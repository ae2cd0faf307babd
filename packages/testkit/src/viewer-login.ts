import {
  deriveLoginKeysV1, deriveLoginKeysV2, fromHex, generateSigningKeyPair, newSalt, oprf, openGrants, openSecret, sealSecret, sign,
  solvePow, toHex
} from '@arus/crypto'
import type { CatalogReader, UserRecord } from '@arus/catalog'
import { rekeySignedBytes, sessionSignedBytes, type RpcClient, type SessionRequest } from '@arus/rpc'

/**
 * The viewer side of login (spec 3 "Authentication" 1), written from docs/rpc-protocol.md, for
 * tests that need many real enrolled devices without an SDK engine each:
 * hello → PoW → OPRF login → read user/<name> from the replicated catalog → finalize → the
 * record's key schedule (2: Argon2id first) → unseal (a wrong password fails here, client-side)
 * → session. `rekey: true` re-keys a schedule-1 record in the session call, as the SDK does;
 * `tamperRekey` changes the signed re-key before it is sent (hostile-client tests).
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
  /** true: re-key a schedule-1 record as the SDK does; 'always': send one whatever the record (a hostile client). */
  rekey?: boolean | 'always'
  tamperRekey?: (rekey: NonNullable<SessionRequest['rekey']>) => NonNullable<SessionRequest['rekey']>
}): Promise<ViewerLogin & { keyVersion?: number | undefined }> {
  const device = init.device ?? generateSigningKeyPair()
  const hello = await rpc.hello()
  const nonce = solvePow(fromHex(hello.challenge, 32), hello.difficulty)
  const input = new TextEncoder().encode(init.password)
  const { blind, blindedElement } = oprf.blind(input)
  const reply = await rpc.login({ username: init.username, blinded: toHex(blindedElement), powNonce: toHex(nonce) })
  const output = oprf.finalize(input, blind, fromHex(reply.evaluated, 32))

  await reader.update({ wait: true })
  const user = await reader.getUser(init.username)
  if (!user) throw new WrongPasswordError('unknown user or wrong password')
  const keys2 = user.keyVersion === 2 ? await deriveLoginKeysV2(output, fromHex(user.salt, 16), user.argon) : deriveLoginKeysV1(output)
  let priv: Uint8Array
  try {
    priv = openSecret(keys2.wrapKey, user.encPriv)
  } catch {
    throw new WrongPasswordError('unknown user or wrong password')
  }
  const auth = keys2.auth
  const deviceId = toHex(device.publicKey)
  const challenge = fromHex(reply.sessionChallenge, 32)
  const msg = sessionSignedBytes(challenge, init.username, deviceId)
  let rekey: SessionRequest['rekey']
  if ((init.rekey === true && user.keyVersion === undefined) || init.rekey === 'always') {
    const salt = newSalt()
    const next = await deriveLoginKeysV2(output, salt, user.argon)
    const fields = { salt: toHex(salt), verifier: toHex(next.verifier), authPub: toHex(next.auth.publicKey), encPriv: sealSecret(next.wrapKey, priv) }
    const bytes = rekeySignedBytes(challenge, init.username, deviceId, fields, user.argon)
    rekey = { keyVersion: 2, ...fields, oldSig: toHex(sign(bytes, auth.secretKey)), newSig: toHex(sign(bytes, next.auth.secretKey)) }
    if (init.tamperRekey) rekey = init.tamperRekey(rekey)
  }
  const session = await rpc.session({
    username: init.username,
    deviceId,
    ...(init.label !== undefined ? { label: init.label } : {}),
    authSig: toHex(sign(msg, auth.secretKey)),
    deviceSig: toHex(sign(msg, device.secretKey)),
    ...(rekey === undefined ? {} : { rekey })
  })
  // Own grants and every held grant group's channel keys (issue 43), as the SDK opens them.
  const records = Object.fromEntries(await Promise.all(Object.keys(user.groups ?? {}).map(async (id) => [id, await reader.getGroup(id)] as const)))
  const keys = openGrants(user, records, priv)
  return { ...session, user, keys }
}
