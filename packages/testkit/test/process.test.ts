import { describe, expect, it } from 'vitest'
import { spawnProcess, TestkitError } from '@arus/testkit'

const node = process.execPath

// A child that prints "ready" once its SIGTERM handler is installed and "bye" when it gets SIGTERM.
const GRACEFUL = `
process.on('SIGTERM', () => { console.log('bye'); process.exit(0) })
console.log('ready pid=' + process.pid)
setInterval(() => {}, 1000)
`
// A child that ignores SIGTERM, so only SIGKILL ends it.
const STUBBORN = `
process.on('SIGTERM', () => {})
console.log('ready')
setInterval(() => {}, 1000)
`

describe('spawnProcess', () => {
  it('waits for a stdout line and stops with SIGTERM, the child exiting cleanly', async (t) => {
    const proc = spawnProcess(t, node, ['-e', GRACEFUL])
    const match = await proc.waitForLine(/^ready pid=(\d+)$/)
    expect(Number(match[1])).toBe(proc.child.pid)
    expect(await proc.stop()).toEqual({ code: 0, signal: null })
    expect(proc.stdoutLines()).toEqual([`ready pid=${proc.child.pid}`, 'bye'])
  })

  it('escalates to SIGKILL when the child ignores the signal past timeoutMs', async (t) => {
    const proc = spawnProcess(t, node, ['-e', STUBBORN])
    await proc.waitForLine(/^ready$/)
    const started = Date.now()
    expect(await proc.stop('SIGTERM', 300)).toEqual({ code: null, signal: 'SIGKILL' })
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('passes env and cwd, and captures stderr', async (t) => {
    const proc = spawnProcess(t, node, ['-e', 'console.log(process.env.ARUS_X + " " + process.cwd()); console.error("oops")'], {
      env: { ARUS_X: 'hello' },
      cwd: '/'
    })
    expect(await proc.waitForExit()).toEqual({ code: 0, signal: null })
    expect(proc.stdoutLines()).toEqual(['hello /'])
    expect(proc.stderrText()).toBe('oops\n')
  })

  it('waitForLine rejects with TESTKIT_PROCESS_EXITED when the child exits first', async (t) => {
    const proc = spawnProcess(t, node, ['-e', 'console.log("other"); process.exit(3)'])
    await expect(proc.waitForLine(/never/)).rejects.toMatchObject({ code: 'TESTKIT_PROCESS_EXITED' })
    expect(await proc.waitForExit()).toEqual({ code: 3, signal: null })
  })

  it('waitForLine and waitForExit are bounded', async (t) => {
    const proc = spawnProcess(t, node, ['-e', STUBBORN])
    await expect(proc.waitForLine(/never/, 100)).rejects.toMatchObject({ code: 'TESTKIT_TIMEOUT' })
    await expect(proc.waitForExit(100)).rejects.toMatchObject({ code: 'TESTKIT_TIMEOUT' })
    expect(await proc.stop('SIGKILL')).toEqual({ code: null, signal: 'SIGKILL' })
  })

  it('kills the process on teardown', async () => {
    const fns: Array<() => unknown> = []
    const proc = spawnProcess({ onTestFinished: (fn) => { fns.push(fn) } }, node, ['-e', STUBBORN])
    await proc.waitForLine(/^ready$/)
    for (const fn of fns) await fn()
    expect(proc.child.signalCode).toBe('SIGKILL')
  }, 20_000)

  it('enforces the timeoutMs life limit', async (t) => {
    const proc = spawnProcess(t, node, ['-e', STUBBORN], { timeoutMs: 300 })
    expect(await proc.waitForExit(5000)).toEqual({ code: null, signal: 'SIGKILL' })
  })

  it('reports a command that cannot start as TESTKIT_SPAWN_FAILED', async (t) => {
    const proc = spawnProcess(t, '/nonexistent/arus-binary', [])
    const error = await proc.waitForExit().catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TestkitError)
    expect((error as TestkitError).code).toBe('TESTKIT_SPAWN_FAILED')
  })
})
