import { boxKeyPair, deriveLoginKeysV2, deriveUserOprfKey, newSalt, oprf, sealSecret, toHex } from '@arus/crypto'
import type { UserRecord } from '@arus/catalog'
import type { PanelContext } from './context.js'
import { PanelError } from './errors.js'

/** The password-derived part of a user record (spec 1 "User record"; ARCHITECTURE "Login"). */
export type AccountSecrets = Pick<UserRecord, 'keyVersion' | 'salt' | 'verifier' | 'argon' | 'pub' | 'encPriv' | 'authPub'>

/**
 * Derives everything a password determines, always at key schedule 2 (Argon2id at the panel's
 * current cost before any key; docs/architecture.md "Login"). The panel can evaluate the OPRF
 * directly because it holds the per-user key; the viewer reaches the same output blindly at
 * login. A fresh X25519 keypair is minted each time, so callers must re-seal grants to `pub`
 * (a reconcile does: a changed `pub` re-seals every group key and manual grant, ops/materialize.ts).
 */
export async function deriveAccountSecrets (ctx: Pick<PanelContext, 'identity' | 'settings'>, username: string, password: string): Promise<AccountSecrets> {
  if (password.length === 0) throw PanelError.invalid('password must not be empty')
  if (password.length > 1024) throw PanelError.invalid('password must be at most 1024 characters')
  const sk = deriveUserOprfKey(ctx.identity.oprfSeed, username)
  const output = oprf.evaluate(sk, new TextEncoder().encode(password))
  const salt = newSalt()
  const argon = { ...ctx.settings.argon }
  const keys = await deriveLoginKeysV2(output, salt, argon)
  const box = boxKeyPair()
  return {
    keyVersion: 2,
    salt: toHex(salt),
    verifier: toHex(keys.verifier),
    argon,
    pub: toHex(box.publicKey),
    encPriv: sealSecret(keys.wrapKey, box.secretKey),
    authPub: toHex(keys.auth.publicKey)
  }
}
