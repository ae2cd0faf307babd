import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { cleanupAll, registerTeardown, TESTKIT_ERROR_CODES, TestkitError } from '@arus/testkit'

describe('TESTKIT_ERROR_CODES', () => {
  it('match the README errors table exactly (code and meaning)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const rows = [...readme.matchAll(/^\| `(TESTKIT_[A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]])
    expect(Object.fromEntries(rows)).toEqual(TESTKIT_ERROR_CODES)
  })
})

describe('cleanupAll', () => {
  it('runs every pending teardown newest first, then reports failures as TESTKIT_CLEANUP_FAILED', async () => {
    const ran: string[] = []
    registerTeardown(undefined, () => { ran.push('first') })
    registerTeardown(undefined, () => { throw new Error('broken') })
    registerTeardown(undefined, () => { ran.push('third') })
    const error = await cleanupAll().catch((err: unknown) => err)
    expect(ran).toEqual(['third', 'first'])
    expect(error).toBeInstanceOf(TestkitError)
    expect((error as TestkitError).code).toBe('TESTKIT_CLEANUP_FAILED')
    await expect(cleanupAll()).resolves.toBeUndefined()
  })

  it('never runs a teardown twice', async () => {
    let runs = 0
    const teardown = registerTeardown(undefined, () => { runs++ })
    await Promise.all([teardown(), teardown()])
    await cleanupAll()
    expect(runs).toBe(1)
  })
})
