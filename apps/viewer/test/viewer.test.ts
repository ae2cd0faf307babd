import { spawn } from 'node:child_process'
import { createInterface } from 'node:readline'
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupAll, createStack, decodeWithFfmpeg as decode, tmpDir, waitFor, type Stack } from '@arus/testkit'
import { runCli } from '../src/index.js'

// arus-viewer (issue 5 item 8) against a panel process and a broadcaster process (ffmpeg) on a
// local testnet.
const BIN = fileURLToPath(new URL('../bin/arus-viewer.js', import.meta.url))
const ctx = { onTestFinished: () => {} }
const PASSWORD = 'alice-secret-pw'
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx, { panel: { users: [{ name: 'alice', password: PASSWORD }] }, broadcasters: 1 })
  await stack.broadcasters[0]!.channel('news', { title: 'News' })
  await stack.panel.api('POST', '/api/streams', { id: 'later', title: 'Later' })
  for (const id of ['news', 'later']) await stack.panel.api('POST', '/api/users/alice/grants', { streamId: id })
}, 90_000)

afterAll(async () => { await cleanupAll() }, 60_000)

function capture () {
  let text = ''
  const stream = new Writable({ write (chunk, _enc, cb) { text += String(chunk); cb() } })
  return { stream, text: () => text, lines: () => text.split('\n').filter(Boolean) }
}

function args (t: { onTestFinished(fn: () => unknown): void }, extra: string[] = []): string[] {
  return ['node', 'arus-viewer', '--panel-key', stack.panel.panelKey, '--user', 'alice', '--bootstrap', stack.bootstrap, '--store-dir', tmpDir(t, 'arus-viewer-'), ...extra]
}

describe('arus-viewer', () => {
  it('logs in (password from stdin), lists the lineup, plays and prints the local URL, logs status and peers', async (t) => {
    const out = capture()
    const err = capture()
    const stop = new AbortController()
    const done = runCli(args(t, ['--json', '--allow-origin', 'http://127.0.0.1:8080']), { stdout: out.stream, stderr: err.stream, stdin: Readable.from([`${PASSWORD}\n`]), env: {}, signal: stop.signal })
    const playing = await waitFor(() => out.lines().map((l) => JSON.parse(l)).find((e) => e.event === 'playing'), { timeoutMs: 60_000, message: 'playing line' })
    expect(playing).toMatchObject({ streamId: 'news', source: 'p2p', type: 'live' })
    expect(playing.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/index\.m3u8$/)
    const decoded = await decode(playing.url, 3)
    expect(decoded.code).toBe(0)
    // --allow-origin is the CORS opt-in for a browser page of that origin (issue 39 item 7).
    const listed = await fetch(playing.url, { headers: { origin: 'http://127.0.0.1:8080' } })
    expect(listed.headers.get('access-control-allow-origin')).toBe('http://127.0.0.1:8080')
    await listed.arrayBuffer()
    await waitFor(() => out.lines().some((l) => JSON.parse(l).event === 'peers'), { timeoutMs: 10_000, message: 'peers line' })
    const events = out.lines().map((l) => JSON.parse(l))
    expect(events.find((e) => e.event === 'lineup')?.streams.map((s: { id: string }) => s.id).sort()).toEqual(['later', 'news'])
    expect(events.filter((e) => e.event === 'status').map((e) => e.state).slice(0, 2)).toEqual(['feed:open', 'feed:ready'])
    stop.abort()
    expect(await done).toBe(0)
    expect(out.text() + err.text()).not.toContain(PASSWORD)
  })

  it('plays --play <streamId>, and reports an unplayable choice with its code', async (t) => {
    const err = capture()
    const code = await runCli(args(t, ['--play', 'later']), { stdout: capture().stream, stderr: err.stream, stdin: Readable.from([`${PASSWORD}\n`]), env: {} })
    expect(code).toBe(1)
    expect(err.text()).toContain('[SDK_NOT_BROADCASTING] channel is not broadcasting right now')
  })

  it('rejects a wrong password and usage errors', async (t) => {
    const err = capture()
    expect(await runCli(args(t), { stdout: capture().stream, stderr: err.stream, stdin: Readable.from(['nope\n']), env: {} })).toBe(1)
    expect(err.text()).toContain('[SDK_WRONG_PASSWORD]')
    const usage = capture()
    expect(await runCli(['node', 'arus-viewer', '--user', 'alice'], { stdout: capture().stream, stderr: usage.stream, stdin: Readable.from([]), env: {} })).toBe(2)
    expect(usage.text()).toContain('--panel-key: is required')
  })

  it('runs as a process: human output, stops cleanly on SIGINT', async (t) => {
    const child = spawn(process.execPath, [BIN, ...args(t).slice(2)], { stdio: ['pipe', 'pipe', 'pipe'] })
    t.onTestFinished(() => { if (child.exitCode === null) child.kill('SIGKILL') })
    child.stdin.end(`${PASSWORD}\n`)
    const lines: string[] = []
    createInterface({ input: child.stdout }).on('line', (l) => lines.push(l))
    const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))
    const line = await waitFor(() => lines.find((l) => l.startsWith('playing news')), { timeoutMs: 60_000, message: 'playing line' })
    expect(line).toMatch(/^playing news \(live, p2p\): http:\/\/127\.0\.0\.1:\d+\/index\.m3u8$/)
    expect(lines.some((l) => l.startsWith('  1. '))).toBe(true)
    // Without --allow-origin no web page may read the stream: no CORS header.
    const listed = await fetch(line.slice(line.indexOf('http://')), { headers: { origin: 'http://127.0.0.1:8080' } })
    expect(listed.status).toBe(200)
    expect(listed.headers.get('access-control-allow-origin')).toBeNull()
    await listed.arrayBuffer()
    child.kill('SIGINT')
    expect(await exited).toBe(0)
  })
})
