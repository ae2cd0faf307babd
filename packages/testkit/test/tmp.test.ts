import { existsSync, writeFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { describe, expect, it } from 'vitest'
import b4a from 'b4a'
import { cleanupAll, pendingTeardowns, tmpDir, tmpStore } from '@arus/testkit'

// A stand-in for vitest's context that lets the test run the teardowns itself.
function fakeContext () {
  const fns: Array<() => unknown> = []
  return {
    onTestFinished: (fn: () => unknown) => { fns.push(fn) },
    finish: async () => { for (const fn of fns.reverse()) await fn() }
  }
}

describe('tmpDir', () => {
  it('creates a directory with the prefix and removes it, contents included, on teardown', async () => {
    const t = fakeContext()
    const dir = tmpDir(t, 'arus-kit-')
    expect(basename(dir).startsWith('arus-kit-')).toBe(true)
    writeFileSync(join(dir, 'file'), 'x')
    expect(existsSync(dir)).toBe(true)
    await t.finish()
    expect(existsSync(dir)).toBe(false)
  })

  it('without a context, cleanupAll removes it', async () => {
    const before = pendingTeardowns()
    const dir = tmpDir()
    expect(pendingTeardowns()).toBe(before + 1)
    await cleanupAll()
    expect(existsSync(dir)).toBe(false)
    expect(pendingTeardowns()).toBe(0)
  })
})

describe('tmpStore', () => {
  it('gives a working Corestore that is closed, then deleted, on teardown', async () => {
    const t = fakeContext()
    const store = tmpStore(t)
    const core = store.get({ name: 'x' })
    await core.append(b4a.from('block'))
    expect(b4a.toString((await core.get(0)) as Buffer)).toBe('block')
    // hypercore-storage keeps its directory on `path` (internal, read only to check removal).
    const dir: unknown = store.storage.path
    expect(typeof dir === 'string' && basename(dir).startsWith('arus-store-') && existsSync(dir)).toBe(true)
    await t.finish()
    expect(store.closed).toBe(true)
    expect(existsSync(dir as string)).toBe(false)
  })
})
