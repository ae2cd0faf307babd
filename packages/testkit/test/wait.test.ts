import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { freePort, TestkitError, waitFor, withTimeout } from '@arus/testkit'

describe('waitFor', () => {
  it('returns the first truthy value', async () => {
    let calls = 0
    const value = await waitFor(() => (++calls >= 3 ? { calls } : null), { intervalMs: 5 })
    expect(value).toEqual({ calls: 3 })
  })

  it('treats a throw as "not yet"', async () => {
    let calls = 0
    const value = await waitFor(async () => {
      if (++calls < 3) throw new Error('not ready')
      return 'ok'
    }, { intervalMs: 5 })
    expect(value).toBe('ok')
  })

  it('is bounded: rejects with TESTKIT_TIMEOUT near timeoutMs, naming the wait and the last error', async () => {
    const started = Date.now()
    const error = await waitFor(() => { throw new Error('still down') }, { timeoutMs: 200, intervalMs: 20, message: 'service up' })
      .catch((err: unknown) => err)
    const elapsed = Date.now() - started
    expect(error).toBeInstanceOf(TestkitError)
    expect((error as TestkitError).code).toBe('TESTKIT_TIMEOUT')
    expect((error as TestkitError).message).toContain('service up')
    expect(((error as TestkitError).cause as Error).message).toBe('still down')
    expect(elapsed).toBeGreaterThanOrEqual(195)
    expect(elapsed).toBeLessThan(5000)
  })

  it('rejects invalid bounds with TESTKIT_BAD_OPTION', async () => {
    await expect(waitFor(() => true, { timeoutMs: Number.POSITIVE_INFINITY })).rejects.toMatchObject({ code: 'TESTKIT_BAD_OPTION' })
    await expect(waitFor(() => true, { intervalMs: 0 })).rejects.toMatchObject({ code: 'TESTKIT_BAD_OPTION' })
  })
})

describe('withTimeout', () => {
  it('passes a settled value through and times out a pending one', async () => {
    await expect(withTimeout(Promise.resolve(1), 1000, 'x')).resolves.toBe(1)
    await expect(withTimeout(new Promise(() => {}), 20, () => 'never')).rejects.toMatchObject({
      code: 'TESTKIT_TIMEOUT',
      message: expect.stringContaining('never') as string
    })
  })
})

describe('freePort', () => {
  it('returns a TCP port that can then be listened on at 127.0.0.1', async (t) => {
    const port = await freePort()
    expect(port).toBeGreaterThan(0)
    const server = createServer()
    t.onTestFinished(() => new Promise<void>((resolve) => server.close(() => resolve())))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', resolve)
    })
    expect((server.address() as { port: number }).port).toBe(port)
  })
})
