import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, onTestFinished } from 'vitest'

const fixture = fileURLToPath(new URL('./fixtures/shutdown-child.ts', import.meta.url))
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))
const BOUND_MS = 20_000

/** Starts the fixture under tsx; resolves helpers to wait for a log message and for the exit code. */
function startChild (mode: 'clean' | 'hang') {
  const child = spawn(process.execPath, ['--import', 'tsx', fixture, mode], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] })
  onTestFinished(() => { if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL') })
  const records: Array<Record<string, any>> = []
  const waiters: Array<{ msg: string, resolve: () => void }> = []
  let buffered = ''
  let stderr = ''
  child.stderr.on('data', (d: Buffer) => { stderr += d.toString() })
  child.stdout.on('data', (d: Buffer) => {
    buffered += d.toString()
    const lines = buffered.split('\n')
    buffered = lines.pop() ?? ''
    for (const line of lines.filter(Boolean)) {
      const rec = JSON.parse(line) as Record<string, any>
      records.push(rec)
      for (const w of waiters.filter((x) => x.msg === rec.msg)) w.resolve()
    }
  })
  const bounded = <T>(p: Promise<T>, what: string): Promise<T> => {
    let timer: NodeJS.Timeout | undefined
    const limit = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`timed out waiting for ${what}; stderr: ${stderr}`)), BOUND_MS)
    })
    return Promise.race([p, limit]).finally(() => clearTimeout(timer))
  }
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)))
  return {
    child,
    records,
    waitFor: (msg: string) => bounded(new Promise<void>((resolve) => {
      if (records.some((r) => r.msg === msg)) resolve()
      else waiters.push({ msg, resolve })
    }), `"${msg}"`),
    exitCode: () => bounded(exited, 'exit')
  }
}

describe('onShutdown in a real process', () => {
  it('SIGTERM runs the closers in order and exits 0', async () => {
    const c = startChild('clean')
    await c.waitFor('ready')
    c.child.kill('SIGTERM')
    expect(await c.exitCode()).toBe(0)
    expect(c.records.map((r) => r.msg)).toEqual(['ready', 'shutting down', 'closer one', 'closer two', 'shutdown complete'])
    expect(c.records[1]).toMatchObject({ reason: 'SIGTERM' })
  })

  it('a second signal while a closer hangs forces exit 1', async () => {
    const c = startChild('hang')
    await c.waitFor('ready')
    c.child.kill('SIGINT')
    await c.waitFor('closer one')
    c.child.kill('SIGTERM')
    expect(await c.exitCode()).toBe(1)
    expect(c.records.map((r) => r.msg)).toContain('second signal during shutdown, forcing exit')
    expect(c.records.map((r) => r.msg)).not.toContain('shutdown complete')
  })
})
