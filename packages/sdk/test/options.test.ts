import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createPlayer, SdkError, SDK_ERROR_CODES } from '@arus/sdk'
import { createTestnet, tmpDir } from '@arus/testkit'

describe('createPlayer options', () => {
  it('accepts no options and every option of the spec table', async () => {
    await createPlayer().stop()
    const p = createPlayer({
      panelPubKey: 'AB'.repeat(32),
      storeDir: '/tmp/never-created',
      prewarm: 3,
      tune: { timeoutMs: 1000, relookupMinMs: 100, relookupMaxMs: 400, rescanMs: 0 },
      zapPrefetch: { neighbors: 2, intervalMs: 500, directional: false, stallMs: 1000, resumeMs: 2000, minHeadroom: 2 },
      uploadPolicy: 'client-only',
      swarm: { maxPeers: 8, bootstrap: [{ host: '127.0.0.1', port: 49737 }] },
      server: { holdMs: 100, stallMs: 100, readAheadSegments: 0, allowOrigin: null },
      deviceLabel: 'living room'
    })
    expect(p.diagnostics()).toMatchObject({ uploadPolicy: 'client-only', port: null, zap: { enabled: true, warm: [] } })
    await p.stop()
  })

  it.each([
    [{ panelPubKey: 'xyz' }, 'panelPubKey'],
    [{ prewarm: -1 }, 'prewarm'],
    [{ tune: { timeoutMs: 0 } }, 'tune.timeoutMs'],
    [{ tune: { relookupMinMs: 500, relookupMaxMs: 100 } }, 'tune.relookupMaxMs'],
    [{ zapPrefetch: { neighbors: 0 } }, 'zapPrefetch'],
    [{ uploadPolicy: 'leech' }, 'uploadPolicy'],
    [{ swarm: { bootstrap: [{ host: '127.0.0.1', port: 0 }] } }, 'swarm.bootstrap.0.port'],
    [{ unknownOption: 1 }, 'unknownOption'],
    [{ hybrid: { cdnUrl: 'https://x' } }, 'hybrid']
  ])('refuses %j naming %s', (opts, name) => {
    let err: unknown
    try {
      createPlayer(opts as never)
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(SdkError)
    expect((err as SdkError).code).toBe('SDK_INVALID_OPTIONS')
    expect((err as SdkError).message).toContain(name)
  })

  it('applies the spec defaults', async () => {
    const p = createPlayer()
    expect(p.diagnostics()).toMatchObject({ uploadPolicy: 'reseed', zap: { enabled: false } })
    await p.stop()
  })
})

describe('storage.writeBufferMiB', () => {
  /** write_buffer_size of the replica store's column family, from the OPTIONS file RocksDB wrote. */
  const memtableBytes = (storeDir: string): number => {
    const db = join(storeDir, 'corestore', 'db')
    const file = readdirSync(db).filter((f) => f.startsWith('OPTIONS-')).sort().pop()!
    const section = readFileSync(join(db, file), 'utf8').split('[CFOptions "corestore"]')[1]!
    return Number(/^\s*write_buffer_size=(\d+)$/m.exec(section)![1])
  }

  it('sizes the memtable the replica store opens with (default 2 MiB)', async (t) => {
    const testnet = await createTestnet(t)
    for (const [storage, bytes] of [[undefined, 2 * 1024 * 1024], [{ writeBufferMiB: 8 }, 8 * 1024 * 1024]] as const) {
      const storeDir = tmpDir(t, 'arus-sdk-wb-')
      const p = createPlayer({ panelPubKey: 'ab'.repeat(32), storeDir, swarm: { bootstrap: testnet.bootstrap }, ...(storage === undefined ? {} : { storage }) })
      await p.connect()
      await p.stop()
      expect(memtableBytes(storeDir)).toBe(bytes)
    }
  })

  it.each([0, 65, 1.5])('refuses %j', (writeBufferMiB) => {
    expect(() => createPlayer({ storage: { writeBufferMiB } })).toThrow(expect.objectContaining({ code: 'SDK_INVALID_OPTIONS' }))
  })
})

describe('methods before connect, and after stop', () => {
  it("login throws 'not connected to panel' before connect", async () => {
    const p = createPlayer()
    await expect(p.login('alice', 'pw')).rejects.toMatchObject({ code: 'SDK_NOT_CONNECTED', message: 'not connected to panel' })
    await expect(p.resolve('news')).rejects.toMatchObject({ code: 'SDK_NOT_LOGGED_IN' })
    await expect(p.connect()).rejects.toMatchObject({ code: 'SDK_NO_PANEL_KEY' })
    expect(p.listStreams()).toEqual([])
    expect(p.source()).toBeNull()
    expect(p.session()).toBeNull()
    await p.stop()
    await expect(p.connect('ab'.repeat(32))).rejects.toMatchObject({ code: 'SDK_STOPPED' })
  })

  it('assetUrl passes absolute URLs through and refuses other paths', async () => {
    const p = createPlayer()
    expect(p.assetUrl('https://cdn.example/logo.png')).toBe('https://cdn.example/logo.png')
    expect(p.assetUrl('')).toBe('')
    expect(() => p.assetUrl('../etc/passwd')).toThrow(SdkError)
    await p.stop()
  })

  it('the emitter never throws on an unhandled error event and isolates throwing listeners', async () => {
    const p = createPlayer()
    const emit = (p as unknown as { emit(e: string, ...a: unknown[]): boolean }).emit.bind(p)
    expect(() => emit('error', new Error('nobody listens'))).not.toThrow()
    const seen: string[] = []
    p.on('error', () => { throw new Error('host bug') })
    p.on('error', (e) => seen.push(e.message))
    expect(() => emit('error', new Error('x'))).not.toThrow()
    expect(seen).toEqual(['x'])
    await p.stop()
  })
})

describe('error codes', () => {
  it('every code is SDK_ prefixed with a meaning', () => {
    for (const [code, meaning] of Object.entries(SDK_ERROR_CODES)) {
      expect(code).toMatch(/^SDK_[A-Z_]+$/)
      expect(meaning.length).toBeGreaterThan(10)
    }
  })
})
