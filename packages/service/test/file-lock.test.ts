import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { readJsonFile, withFileLock, writeJsonAtomic } from '@arus/service'

const Counter = z.object({ n: z.number().int() })

describe('withFileLock', () => {
  it('serializes read-modify-write cycles on one path so no update is lost', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'arus-lock-'))
    onTestFinished(() => rm(dir, { recursive: true, force: true }))
    const file = join(dir, 'counter.json')
    const bump = (): Promise<void> => withFileLock(file, async () => {
      const cur = await readJsonFile(file, Counter, { missing: 'null' })
      await writeJsonAtomic(file, { n: (cur?.n ?? 0) + 1 })
    })
    await Promise.all(Array.from({ length: 25 }, bump))
    expect(await readJsonFile(file, Counter)).toEqual({ n: 25 })
  })

  it('runs callers in arrival order, keeps running after a failure, and treats equivalent paths as one', async () => {
    const order: string[] = []
    let releaseFirst!: () => void
    const gate = new Promise<void>((r) => { releaseFirst = r })
    const first = withFileLock('/tmp/arus-lock-test/x.json', async () => { await gate; order.push('first') })
    const failing = withFileLock('/tmp/arus-lock-test/./x.json', () => { order.push('second'); throw new Error('boom') })
    const third = withFileLock('/tmp/arus-lock-test/sub/../x.json', () => { order.push('third'); return 3 })
    const other = withFileLock('/tmp/arus-lock-test/other.json', () => { order.push('other') })
    await other
    expect(order).toEqual(['other'])
    releaseFirst()
    await first
    await expect(failing).rejects.toThrow('boom')
    expect(await third).toBe(3)
    expect(order).toEqual(['other', 'first', 'second', 'third'])
  })
})
