import { generateKeyPairSync } from 'node:crypto'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Corestore from 'corestore'
import type { PanelKeyPair, RangeChange, StreamRecord, UserRecord } from '@arus/catalog'

// Test resources close in reverse order of creation (readers/writers before their stores)
// from each file's afterEach(cleanup).
const stack: Array<() => Promise<void>> = []

export function defer (fn: () => Promise<void> | void): void {
  stack.push(async () => { await fn() })
}

export async function cleanup (): Promise<void> {
  while (stack.length > 0) {
    const fn = stack.pop()!
    await fn().catch((err: unknown) => { console.error('cleanup failed', err) })
  }
}

/** An Ed25519 keypair in libsodium layout (secretKey = seed ‖ publicKey). */
export function panelKeyPair (): PanelKeyPair {
  const { publicKey, privateKey } = generateKeyPairSync('ed25519')
  const pub = new Uint8Array(publicKey.export({ format: 'der', type: 'spki' }).subarray(-32))
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32)
  const secretKey = new Uint8Array(64)
  secretKey.set(seed, 0)
  secretKey.set(pub, 32)
  return { publicKey: pub, secretKey }
}

/** A Corestore in a fresh temp dir, closed and removed at cleanup. */
export async function tempStore (): Promise<Corestore> {
  const dir = await mkdtemp(join(tmpdir(), 'arus-catalog-'))
  const store = new Corestore(dir)
  defer(async () => {
    await store.close()
    await rm(dir, { recursive: true, force: true })
  })
  await store.ready()
  return store
}

/** Replicates two stores over piped in-process streams; torn down at cleanup or by the returned function. */
export function replicate (a: Corestore, b: Corestore): () => void {
  const s1 = a.replicate(true)
  const s2 = b.replicate(false)
  s1.on('error', () => {})
  s2.on('error', () => {})
  s1.pipe(s2).pipe(s1)
  const stop = (): void => { s1.destroy(); s2.destroy() }
  defer(stop)
  return stop
}

export const HEX32 = 'ab'.repeat(32)
export const HEX32B = 'cd'.repeat(32)

export function liveRecord (over: Partial<StreamRecord> = {}): StreamRecord {
  return {
    v: 1,
    title: 'News 24',
    description: 'All news',
    category: ['News'],
    type: 'live',
    protection: 'self',
    isLive: true,
    order: 1,
    featured: false,
    poster: '',
    backdrop: '',
    logo: '',
    feedKey: HEX32,
    blobsKey: null,
    redirect: false,
    url: null,
    origin: null,
    status: 'live',
    ...over
  } as StreamRecord
}

export function vodRecord (over: Record<string, unknown> = {}): StreamRecord {
  return {
    v: 1,
    title: 'A film',
    description: '',
    category: ['Movies'],
    type: 'vod',
    protection: 'self',
    durationSec: 5400,
    order: null,
    featured: true,
    poster: 'assets/' + 'ef'.repeat(16) + '.jpg',
    backdrop: '',
    logo: 'https://cdn.example.com/logo.png?size=2',
    feedKey: HEX32,
    blobsKey: HEX32B,
    redirect: false,
    url: null,
    origin: 'site-a',
    status: 'available',
    ...over
  } as StreamRecord
}

export function userRecord (over: Partial<UserRecord> = {}): UserRecord {
  return {
    v: 1,
    salt: '01'.repeat(16),
    verifier: '02'.repeat(32),
    argon: { opslimit: 3, memlimit: 67108864 },
    pub: '03'.repeat(32),
    encPriv: '04'.repeat(72),
    authPub: '05'.repeat(32),
    wrapped: {},
    devices: [],
    tokenVersion: 0,
    maxDevices: 3,
    status: 'active',
    ...over
  }
}

/** Collects watch callbacks; `next()` resolves with the next batch or rejects after a bound. */
export function changeQueue (): { push: (c: RangeChange[]) => void; next: (timeoutMs?: number) => Promise<RangeChange[]>; pending: () => number } {
  const batches: RangeChange[][] = []
  const waiters: Array<(c: RangeChange[]) => void> = []
  return {
    push (c) {
      const w = waiters.shift()
      if (w) w(c)
      else batches.push(c)
    },
    next (timeoutMs = 5000) {
      const ready = batches.shift()
      if (ready) return Promise.resolve(ready)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => {
          waiters.splice(waiters.indexOf(done), 1)
          reject(new Error(`no watch change within ${timeoutMs} ms`))
        }, timeoutMs)
        const done = (c: RangeChange[]): void => { clearTimeout(timer); resolve(c) }
        waiters.push(done)
      })
    },
    pending: () => batches.length
  }
}

/** Resolves when `emitter` emits `event`, rejects after a bound. */
export function once (emitter: { once (e: string, fn: (...args: any[]) => void): unknown; off (e: string, fn: (...args: any[]) => void): unknown }, event: string, timeoutMs = 5000): Promise<unknown[]> {
  return new Promise((resolve, reject) => {
    const fn = (...args: unknown[]): void => { clearTimeout(timer); resolve(args) }
    const timer = setTimeout(() => { emitter.off(event, fn); reject(new Error(`no ${event} within ${timeoutMs} ms`)) }, timeoutMs)
    emitter.once(event, fn)
  })
}
