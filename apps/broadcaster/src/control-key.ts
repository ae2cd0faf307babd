import { z } from 'zod'
import { fromHex, generateSigningKeyPair, toHex } from '@arus/crypto'
import { readJsonFile, writeJsonAtomic } from '@arus/service'

/**
 * The control API's token signing key (spec 2 "Authentication" 1: tokens signed with a
 * service-local keypair): an Ed25519 pair in private/control-key.json (0600), created on
 * first use. Deleting the file ends every control session.
 */
const ControlKeyFile = z.object({ v: z.literal(1), publicKey: z.string().regex(/^[0-9a-f]{64}$/), secretKey: z.string().regex(/^[0-9a-f]{128}$/) })

export async function loadControlKey (path: string): Promise<{ publicKey: Uint8Array; secretKey: Uint8Array }> {
  const file = await readJsonFile(path, ControlKeyFile, { missing: 'null' })
  if (file) return { publicKey: fromHex(file.publicKey, 32), secretKey: fromHex(file.secretKey, 64) }
  const kp = generateSigningKeyPair()
  await writeJsonAtomic(path, { v: 1, publicKey: toHex(kp.publicKey), secretKey: toHex(kp.secretKey) }, { mode: 0o600 })
  return { publicKey: kp.publicKey, secretKey: kp.secretKey }
}
