import b4a from 'b4a'
import { fromHex, generateSigningKeyPair, randomBytes, toHex, type KeyPair } from '@arus/crypto'
import { DEVICE_FILE, DEVICE_FILE_VERSION } from './constants.js'
import { joinPath, type FsModule } from './runtime.js'

/**
 * The device's Ed25519 key pair: its public half is the deviceId the panel enrolls. Kept in
 * `<storeDir>/device.json` (0600) beside — not inside — the disposable replica, so a store purge
 * does not enroll a new device. A missing or unreadable file mints a new key (the panel then
 * enrolls one more device, evicting the oldest past maxDevices).
 */
export async function loadDeviceKey (fs: FsModule, storeDir: string): Promise<KeyPair> {
  const path = joinPath(storeDir, DEVICE_FILE)
  try {
    const text = b4a.toString(await fs.readFile(path), 'utf8')
    const parsed = JSON.parse(text) as { v?: unknown; seed?: unknown }
    if (parsed.v === DEVICE_FILE_VERSION && typeof parsed.seed === 'string') return generateSigningKeyPair(fromHex(parsed.seed, 32))
  } catch {
    // absent or damaged: mint a new one below
  }
  const seed = randomBytes(32)
  await fs.mkdir(storeDir, { recursive: true })
  const tmp = `${path}.tmp`
  await fs.writeFile(tmp, JSON.stringify({ v: DEVICE_FILE_VERSION, seed: toHex(seed) }) + '\n', { mode: 0o600 })
  await fs.rename(tmp, path)
  return generateSigningKeyPair(seed)
}
