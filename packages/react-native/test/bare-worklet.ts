import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { registerTeardown, type TestContextLike } from '@arus/testkit'
import type { WorkletLike } from '../src/backend.js'
import { BARE } from '../../../test/mobile/worklet-host.js'

/**
 * A stand-in for react-native-bare-kit's Worklet on this machine: start() writes the bundle
 * bytes the backend hands it next to the desktop build (where its addons are) and runs them
 * with the real `bare` CLI; IPC is the process's stdin/stdout, the same line-delimited JSON
 * that BareKit.IPC carries on a phone.
 */
export function bareWorklet (t: TestContextLike, buildDir: string, log: string[] = []): WorkletLike & { exited: Promise<number | null> } {
  const listeners = new Set<(d: Uint8Array) => void>()
  let proc: ReturnType<typeof spawn> | null = null
  let resolveExit: (code: number | null) => void = () => {}
  const exited = new Promise<number | null>((resolve) => { resolveExit = resolve })
  registerTeardown(t, async () => { if (proc !== null && proc.exitCode === null && proc.signalCode === null) { proc.kill('SIGKILL'); await exited } })
  return {
    exited,
    IPC: {
      on (_event: 'data', fn: (d: Uint8Array) => void) { listeners.add(fn) },
      write (data: Uint8Array) { proc?.stdin?.write(data) }
    },
    start (filename: string, source: Uint8Array, args: string[] = []) {
      const file = join(buildDir, `from-host-${Date.now()}-${filename.replace(/\W/g, '')}.bundle`)
      writeFileSync(file, source)
      proc = spawn(BARE, [file, ...args], { stdio: ['pipe', 'pipe', 'pipe'], cwd: dirname(file) })
      proc.stdout!.on('data', (d: Buffer) => { for (const fn of listeners) fn(new Uint8Array(d)) })
      proc.stderr!.on('data', (d: Buffer) => { log.push(d.toString()) })
      proc.once('exit', (code) => resolveExit(code))
    },
    terminate () { proc?.stdin?.end() }
  }
}
