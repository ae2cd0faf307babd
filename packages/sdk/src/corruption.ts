/**
 * Recognizes a damaged replica store (spec 3 "storeDir": corruption such as EPARTIALREAD or
 * OPLOG_CORRUPT is detected, the store purged and the operation retried once). Codes come from
 * hypercore / hypercore-storage / device-file; RocksDB reports damage as EIO with a message.
 */
const CORRUPTION_CODES = new Set([
  'EPARTIALREAD',
  'OPLOG_CORRUPT',
  'OPLOG_HEADER_OVERFLOW',
  'INVALID_OPLOG_VERSION',
  'STORAGE_CORRUPTION',
  'INVALID_CHECKSUM',
  'DEVICE_FILE'
])

// RocksDB's wording (case-sensitive on purpose: hypercore's own 'manifest' errors are not damage).
const CORRUPTION_MESSAGE = /Corruption|corrupted|CURRENT file|MANIFEST|checksum mismatch|bad magic|moved unsafely/

export function isStoreCorruption (err: unknown): boolean {
  for (let e: unknown = err, depth = 0; e !== null && typeof e === 'object' && depth < 4; e = (e as { cause?: unknown }).cause, depth++) {
    const { code, message } = e as { code?: unknown; message?: unknown }
    if (typeof code === 'string' && CORRUPTION_CODES.has(code)) return true
    if (typeof message === 'string' && CORRUPTION_MESSAGE.test(message)) return true
  }
  return false
}
