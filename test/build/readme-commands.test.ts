import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

// Issue 39 item 8: the README promises that every binary is reachable from the repository
// root with `pnpm exec` after the set-up. Each `pnpm exec …` command line the README names is
// run here as written, from the root, through the same pnpm the set-up installed.
const root = fileURLToPath(new URL('../..', import.meta.url))
const readme = readFileSync(join(root, 'README.md'), 'utf8')

function pnpm (): string {
  const local = join(root, '.tools', 'node_modules', '.bin', 'pnpm')
  return existsSync(local) ? local : 'pnpm'
}

/** Every `pnpm exec <bin> [args]` in backticks or at the start of a code line, as written. */
function readmeCommands (): string[][] {
  const found = new Set<string>()
  for (const m of readme.matchAll(/`(pnpm exec [^`]+)`/g)) found.add(m[1]!.trim())
  for (const m of readme.matchAll(/^(pnpm exec \S+(?: [^#\n]*?)?)\s*(?:#.*)?$/gm)) found.add(m[1]!.trim())
  return [...found].map((c) => c.split(/\s+/).slice(2))
}

interface Run { code: number | null; out: string; err: string }

/** Runs `pnpm exec <args>`; `until` ends a long-running command (SIGTERM) once its stdout matches. */
function exec (args: string[], init: { until?: RegExp; timeoutMs?: number } = {}): Promise<Run> {
  return new Promise((resolve) => {
    const child = spawn(pnpm(), ['exec', ...args], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, CI: 'true' } })
    let out = ''
    let err = ''
    const timer = setTimeout(() => child.kill('SIGKILL'), init.timeoutMs ?? 30_000)
    child.stdout.setEncoding('utf8').on('data', (s: string) => {
      out += s
      if (init.until?.test(out) === true) child.kill('SIGTERM')
    })
    child.stderr.setEncoding('utf8').on('data', (s: string) => { err += s })
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out, err }) })
  })
}

it('finds the binaries the README promises, and the tools of its development block', () => {
  const bins = readmeCommands().map((a) => a[0])
  for (const b of ['arus-testnet', 'arus-panel', 'arus-broadcaster', 'arus-library', 'arus-reseller', 'arus-viewer', 'tsc', 'vitest', 'eslint', 'tsx']) expect(bins).toContain(b)
})

it('runs every README `pnpm exec arus-*` command line from the repository root', { timeout: 180_000 }, async () => {
  const daemons = readmeCommands().filter((a) => a[0]!.startsWith('arus-'))
  for (const args of daemons) {
    if (args.length === 1 && args[0] === 'arus-testnet') {
      // Long-running: it prints its bootstrap address first, then runs until SIGTERM (pnpm itself
      // ends by the signal, so its exit code says nothing about the testnet).
      const r = await exec(args, { until: /BOOTSTRAP=127\.0\.0\.1:\d+\n/ })
      expect(r.out, r.err).toMatch(/^BOOTSTRAP=127\.0\.0\.1:\d+$/m)
      continue
    }
    const r = await exec(args)
    expect(r.code, `${args.join(' ')}: ${r.err}`).toBe(0)
    expect(r.out).toMatch(new RegExp(`^Usage: ${args[0]} `))
  }
})

it('reaches the development tools the README runs with `pnpm exec`', { timeout: 120_000 }, async () => {
  const tools = [...new Set(readmeCommands().map((a) => a[0]!).filter((b) => !b.startsWith('arus-')))]
  for (const tool of tools) {
    const r = await exec([tool, '--version'])
    expect(r.code, `${tool}: ${r.err}`).toBe(0)
    expect(r.out.trim()).not.toBe('')
  }
})
