import './globals.js'
import http from 'bare-http1'
import fs from 'bare-fs'
import os from 'bare-os'
import { createEngine, type HttpModule, type FsModule } from '@arus/sdk'
import { bareFetch } from './fetch.js'

/**
 * The viewer engine as a Bare worklet (docs/engine-ipc.md). On a phone, react-native-bare-kit
 * starts this bundle and hands it `BareKit.IPC`; under the `bare` CLI (desktop, tests) the IPC
 * is stdin/stdout. Arguments: `--data <dir>` (the worklet's own directory: replica store and
 * prefs; default `<home>/.arus-engine`) and `--ca <file>` (PEM certificates the engine's own
 * https fetches, the programme guide's, trust instead of the built-in roots: a private CA, a
 * test server). Everything else arrives as commands.
 */
declare const Bare: { argv: string[]; exit(code?: number): void; on(event: string, fn: () => void): void }
declare const BareKit: { IPC: Duplex } | undefined

interface Duplex {
  on(event: 'data', fn: (chunk: Uint8Array) => void): unknown
  on(event: 'end' | 'close', fn: () => void): unknown
  write(chunk: string): unknown
}

function argument (name: string): string | null {
  const i = Bare.argv.indexOf(name)
  return i >= 0 && i + 1 < Bare.argv.length ? (Bare.argv[i + 1] as string) : null
}

const ipc = typeof BareKit !== 'undefined' ? { input: BareKit.IPC, output: BareKit.IPC } : { input: process.stdin as unknown as Duplex, output: process.stdout as unknown as Duplex }
const dataDir = argument('--data') ?? `${os.homedir()}/.arus-engine`
const caFile = argument('--ca')

const engine = createEngine({
  runtime: { http: http as unknown as HttpModule, fs: fs.promises as unknown as FsModule },
  dataDir,
  fetch: bareFetch(caFile === null ? null : fs.readFileSync(caFile)),
  write: (line) => { ipc.output.write(line) },
  warn: (message) => { console.error(message) },
  onStopped: () => { Bare.exit(0) }
})

ipc.input.on('data', (chunk) => engine.push(chunk))
// The host went away: tear down and leave.
ipc.input.on('end', () => { engine.close().finally(() => Bare.exit(0)) })
