import { z } from 'zod'
import { fromHex, generateSigningKeyPair, toHex } from '@arus/crypto'
import { readJsonFile, writeJsonAtomic } from '../files.js'
import type { TokenKeys } from '../http/auth.js'

/**
 * A daemon's own token signing key (spec 2 "Authentication" 1: control tokens are signed
 * with a service-local keypair): an Ed25519 pair in one private JSON file (0600), created on
 * first use. Deleting the file ends every session. The panel signs with its identity instead.
 */
const SigningKeyFile = z.object({ v: z.literal(1), publicKey: z.string().regex(/^[0-9a-f]{64}$/), secretKey: z.string().regex(/^[0-9a-f]{128}$/) })

export async function loadSigningKey (path: string): Promise<TokenKeys> {
  const file = await readJsonFile(path, SigningKeyFile, { missing: 'null' })
  if (file) return { publicKey: fromHex(file.publicKey, 32), secretKey: fromHex(file.secretKey, 64) }
  const kp = generateSigningKeyPair()
  await writeJsonAtomic(path, { v: 1, publicKey: toHex(kp.publicKey), secretKey: toHex(kp.secretKey) }, { mode: 0o600 })
  return { publicKey: kp.publicKey, secretKey: kp.secretKey }
}
