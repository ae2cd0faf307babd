import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { decodeWithFfmpeg, waitFor } from '@arus/testkit'

// The README's demo command from the top (issue 5 item 9): scripts/demo.sh sets the machine up
// (idempotent), starts testnet, panel, broadcaster and viewer on 127.0.0.1 and prints the URL;
// the URL plays; Ctrl-C stops everything and removes the demo's directory.
const root = fileURLToPath(new URL('../../../', import.meta.url))

it('scripts/demo.sh starts the stack, the printed URL plays, Ctrl-C stops everything cleanly', async (t) => {
  const child = spawn('bash', ['scripts/demo.sh'], { cwd: root, env: { ...process.env, ARUS_SKIP_CHROMIUM: '1' }, stdio: ['ignore', 'pipe', 'pipe'] })
  t.onTestFinished(() => { if (child.exitCode === null) child.kill('SIGKILL') })
  const out: string[] = []
  let err = ''
  createInterface({ input: child.stdout }).on('line', (l) => out.push(l))
  child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s })
  const exited = new Promise<number | null>((resolve) => child.on('close', (code) => resolve(code)))

  const url = (await waitFor(() => out.find((l) => l.startsWith('DEMO_URL=')), { timeoutMs: 300_000, intervalMs: 200, message: `demo ready (stderr: ${err.slice(-2000)})` })).slice('DEMO_URL='.length)
  expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/index\.m3u8$/)
  const text = out.join('\n')
  expect(text).toMatch(/Viewer login: user "viewer", password "\S+"/)
  expect(text).toContain('Press Ctrl-C to stop everything.')
  const urls = [...text.matchAll(/http:\/\/([0-9.]+):\d+/g)].map((m) => m[1])
  expect(urls.every((host) => host === '127.0.0.1')).toBe(true)
  const logs = /Logs: +(\S+)/.exec(text)?.[1] as string

  const played = await decodeWithFfmpeg(url, 3)
  expect(played.stderr).toBe('')
  expect(played.code).toBe(0)

  child.kill('SIGINT')
  expect(await Promise.race([exited, new Promise((resolve) => setTimeout(() => resolve('timeout'), 60_000))])).toBe(0)
  expect(err).toContain('[demo] stopped')
  expect(existsSync(logs)).toBe(false)
  await expect(fetch(url)).rejects.toThrow() // the viewer's server is gone
}, 420_000)
