/**
 * The source of the verification thread, run with `new Worker(code, { eval: true })` so the
 * same text works from the TypeScript sources (tests) and from dist (daemons) without a
 * loader or a copy step. It is CommonJS: it `require`s sodium-native by the absolute path
 * the main thread resolved, computes Argon2id13 synchronously (this thread exists only for
 * that, so a runaway cost can be abandoned by terminating it) and compares in constant time.
 *
 * Message in:  { id, input, salt, opslimit, memlimit, verifier }   (byte fields as Uint8Array)
 * Message out: { ready: true } once sodium is loaded; then { id, ok: boolean } or { id, error: string }
 */
export const VERIFY_THREAD_SOURCE = `
'use strict'
const { parentPort, workerData } = require('node:worker_threads')
const sodium = require(workerData.sodiumPath)
parentPort.postMessage({ ready: true })
parentPort.on('message', (m) => {
  try {
    const out = Buffer.alloc(32)
    sodium.crypto_pwhash(out, Buffer.from(m.input), Buffer.from(m.salt), m.opslimit, m.memlimit, sodium.crypto_pwhash_ALG_ARGON2ID13)
    const expected = Buffer.from(m.verifier)
    const ok = expected.length === out.length && sodium.sodium_memcmp(out, expected)
    parentPort.postMessage({ id: m.id, ok })
  } catch (err) {
    parentPort.postMessage({ id: m.id, error: String(err && err.message || err) })
  }
})
`
