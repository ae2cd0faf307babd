import { spawn, spawnSync, type ChildProcess } from 'node:child_process'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createStack, registerTeardown, tmpDir, type Stack, type TestContextLike } from '@arus/testkit'

const sdk = fileURLToPath(new URL('../../packages/sdk/', import.meta.url))

/** The Bare runtime binary from npm (bare-runtime-linux-x64, a devDependency of @arus/sdk). */
export const BARE = join(createRequire(join(sdk, 'package.json')).resolve('bare-runtime-linux-x64/package'), '..', 'bin', 'bare')

/** Builds the worklet bundle for this machine into a temp dir (scripts/bundle-worklet.mjs); resolves its path. */
export function buildBundle (t: TestContextLike): { bundle: string; bytes: number } {
  const out = tmpDir(t, 'arus-worklet-')
  const r = spawnSync(process.execPath, [join(sdk, 'scripts', 'bundle-worklet.mjs'), '--out', out], { encoding: 'utf8', timeout: 120_000 })
  if (r.status !== 0) throw new Error(`bundle-worklet failed: ${r.stderr}`)
  const info = JSON.parse(r.stdout.trim().split('\n').pop() as string) as { bytes: number }
  return { bundle: join(out, 'arus-engine.bundle'), bytes: info.bytes }
}

export type Msg = Record<string, any> & { type: string }
export type Step = { send: Record<string, unknown> } | { sendRaw: string } | { sendOversized: number } | { receive: Msg }

/** A worklet process under the real Bare runtime, spoken to over stdin/stdout in the engine's line protocol. */
export interface Worklet {
  readonly proc: ChildProcess
  /** Every message received so far, in order. */
  readonly messages: Msg[]
  /** Sends and receives in order (sendRaw of an oversized line is recorded as its size). */
  readonly transcript: Step[]
  /** Everything the worklet wrote on stderr (its warnings). */
  stderr(): string
  send(command: Record<string, unknown>): void
  sendRaw(text: string): void
  /** Resolves the first message after index `from` that matches (bounded). */
  next(match: (m: Msg) => boolean, opts?: { from?: number; timeoutMs?: number; what?: string }): Promise<Msg>
  /** Resolves the exit code once the process ended (bounded). */
  exited(timeoutMs?: number): Promise<number | null>
  kill(): void
}

/** `args`: more worklet arguments (`--ca <file>`). */
export function startWorklet (t: TestContextLike, bundle: string, dataDir: string, args: string[] = []): Worklet {
  const proc = spawn(BARE, [bundle, '--data', dataDir, ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  const messages: Msg[] = []
  const transcript: Step[] = []
  let raw = ''
  let err = ''
  let buf = ''
  const waiters = new Set<() => void>()
  proc.stdout!.setEncoding('utf8')
  proc.stdout!.on('data', (d: string) => {
    buf += d
    for (let nl = buf.indexOf('\n'); nl >= 0; nl = buf.indexOf('\n')) {
      const line = buf.slice(0, nl)
      buf = buf.slice(nl + 1)
      if (line.trim() === '') continue
      const msg = JSON.parse(line) as Msg
      messages.push(msg)
      transcript.push({ receive: msg })
    }
    for (const w of [...waiters]) w()
  })
  proc.stderr!.setEncoding('utf8')
  proc.stderr!.on('data', (d: string) => { err += d })
  const exit = new Promise<number | null>((resolve) => proc.once('exit', (code) => { for (const w of [...waiters]) w(); resolve(code) }))
  registerTeardown(t, async () => {
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGKILL')
      await exit
    }
  })
  return {
    proc,
    messages,
    transcript,
    stderr: () => err,
    send: (command) => { transcript.push({ send: command }); proc.stdin!.write(JSON.stringify(command) + '\n') },
    sendRaw: (text) => {
      raw += text
      for (let nl = raw.indexOf('\n'); nl >= 0; nl = raw.indexOf('\n')) {
        const line = raw.slice(0, nl)
        raw = raw.slice(nl + 1)
        transcript.push(line.length > 64 * 1024 ? { sendOversized: Buffer.byteLength(line) } : { sendRaw: line })
      }
      proc.stdin!.write(text)
    },
    next (match, opts = {}) {
      const from = opts.from ?? 0
      const timeoutMs = opts.timeoutMs ?? 30_000
      return new Promise((resolve, reject) => {
        const check = (): boolean => {
          const found = messages.slice(from).find(match)
          if (found !== undefined) { done(); resolve(found); return true }
          if (proc.exitCode !== null || proc.signalCode !== null) { done(); reject(new Error(`worklet exited waiting for ${opts.what ?? 'a message'}; stderr: ${err}`)); return true }
          return false
        }
        const timer = setTimeout(() => { done(); reject(new Error(`no ${opts.what ?? 'message'} within ${timeoutMs} ms; got ${JSON.stringify(messages.slice(from)).slice(0, 2000)}; stderr: ${err}`)) }, timeoutMs)
        const done = (): void => { clearTimeout(timer); waiters.delete(wake) }
        const wake = (): void => { check() }
        if (!check()) waiters.add(wake)
      })
    },
    exited: (timeoutMs = 20_000) => Promise.race([exit, new Promise<null>((_r, reject) => setTimeout(() => reject(new Error('worklet did not exit')), timeoutMs))]),
    kill: () => { proc.kill('SIGKILL') }
  }
}

/**
 * The engine bundle plus a local testnet, a panel with `alice` and a broadcaster playing `news`
 * granted to her: what the mobile bindings' tests drive the real engine against.
 */
export async function engineStack (t: TestContextLike): Promise<{ stack: Stack; bundle: string }> {
  const bundle = buildBundle(t).bundle
  const stack = await createStack(t, { panel: { users: [{ name: 'alice', password: 'alice-pw' }] }, broadcasters: 1 })
  await stack.broadcasters[0]!.channel('news', { title: 'News' })
  await stack.panel.api('POST', '/api/users/alice/grants', { streamId: 'news' })
  return { stack, bundle }
}

