import { randomBytes } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import sodium from 'sodium-native'
import { ensurePrivateDir, writeFileAtomic, PRIVATE_FILE_MODE } from '@arus/service'
import { dirname } from 'node:path'
import { RepeaterError } from './errors.js'

/** The repeater's swarm key pair: what an origin lists in ORIGIN_RELAY_KEYS to serve it first. */
export interface SwarmIdentity { publicKey: Buffer; secretKey: Buffer }

function fromSeed (seed: Buffer): SwarmIdentity {
  const publicKey = Buffer.alloc(sodium.crypto_sign_PUBLICKEYBYTES)
  const secretKey = Buffer.alloc(sodium.crypto_sign_SECRETKEYBYTES)
  sodium.crypto_sign_seed_keypair(publicKey, secretKey, seed)
  return { publicKey, secretKey }
}

/** Reads the identity's seed, or mints and stores one (0600) when `create` and there is none. */
export async function loadIdentity (path: string, create: boolean): Promise<SwarmIdentity | null> {
  let seed: Buffer | null = null
  try {
    seed = await readFile(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err
  }
  if (seed !== null) {
    if (seed.byteLength !== 32) throw RepeaterError.badState(`${path} is not a 32-byte seed: move it away to mint a new identity (origins that trust the old key must be told the new one)`)
    return fromSeed(seed)
  }
  if (!create) return null
  await ensurePrivateDir(dirname(path))
  seed = randomBytes(32)
  await writeFileAtomic(path, seed, { mode: PRIVATE_FILE_MODE })
  return fromSeed(seed)
}
