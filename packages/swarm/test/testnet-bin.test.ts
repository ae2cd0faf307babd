import { spawn, execFile } from 'node:child_process'
import type { ChildProcess } from 'node:child_process'
import { createSocket } from 'node:dgram'
import { existsSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import b4a from 'b4a'
import HyperDHT from 'hyperdht'
import { createSwarm, parseBootstrap, topicFor } from '@arus/swarm'
import { firstData, within } from './helpers.js'

const repoRoot = fileURLToPath(new URL('../../../', import.meta.url))
const bin = fileURLToPath(new URL('../bin/arus-testnet.js', import.meta.url))
const echoServer = fileURLToPath(new URL('./fixtures/echo-server.mjs', import.meta.url))

interface Proc {
  child: ChildProcess
  nextLine(label: string, ms?: number): Promise<string>
  stderr(): string
  exit(ms?: number): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
}

// Spawns `node <args>`, killed (SIGKILL) at test end if still running.
function run (args: string[], env: Record<string, string> = {}): Proc {
  const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
  onTestFinished(async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    await exited
  })
  let err = ''
  child.stderr?.on('data', (d: Buffer) => { err += d.toString() })
  const lines: string[] = []
  const waiters: Array<(line: string) => void> = []
  createInterface({ input: child.stdout! }).on('line', (line) => {
    const waiter = waiters.shift()
    if (waiter) waiter(line); else lines.push(line)
  })
  return {
    child,
    nextLine: (label, ms = 20_000) => within(ms, `${label} (stderr: ${err})`, new Promise<string>((resolve) => {
      const line = lines.shift()
      if (line !== undefined) resolve(line); else waiters.push(resolve)
    })),
    stderr: () => err,
    exit: (ms = 15_000) => within(ms, 'process exit', exited)
  }
}

async function freeUdpPort (): Promise<number> {
  const socket = createSocket('udp4')
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const { port } = socket.address()
  await new Promise<void>((resolve) => socket.close(resolve))
  return port
}

beforeAll(async () => {
  // Incremental and fast when up to date; guarantees the bin runs the current sources.
  await promisify(execFile)(process.execPath, [`${repoRoot}node_modules/typescript/bin/tsc`, '-b', 'packages/swarm'], { cwd: repoRoot, timeout: 120_000 })
  expect(existsSync(fileURLToPath(new URL('../dist/bin/testnet.js', import.meta.url)))).toBe(true)
}, 150_000)

describe('arus-testnet bin', () => {
  it('serves a DHT that connects a server in another process to this one, then exits 0 on SIGTERM', async () => {
    const testnet = run([bin])
    const first = await testnet.nextLine('BOOTSTRAP line')
    expect(first).toMatch(/^BOOTSTRAP=127\.0\.0\.1:\d+$/)
    const bootstrapValue = first.slice('BOOTSTRAP='.length)
    const bootstrap = parseBootstrap(bootstrapValue)

    const key = HyperDHT.keyPair().publicKey
    const server = run([echoServer], { BOOTSTRAP: bootstrapValue, TOPIC_KEY: b4a.toString(key, 'hex') })
    // The loopback bootstrap alone must make the server unfirewalled (VERSIONS.md gotcha).
    expect(await server.nextLine('server READY')).toBe('READY firewalled=false')

    const client = createSwarm({ bootstrap })
    onTestFinished(() => client.destroy())
    const connected = new Promise<HyperDHT.NoiseSocket>((resolve) => client.once('connection', resolve))
    client.join(topicFor(key), { server: false, client: true })
    const conn = await within(15_000, 'connection to the server process', connected)
    const reply = firstData(conn)
    conn.write(b4a.from('ping'))
    expect(b4a.toString(await within(10_000, 'reply', reply))).toBe(`pong:${server.child.pid}:ping`)

    await client.destroy()
    server.child.kill('SIGTERM')
    expect(await server.exit()).toEqual({ code: 0, signal: null })
    testnet.child.kill('SIGTERM')
    expect(await testnet.exit()).toEqual({ code: 0, signal: null })
    expect(testnet.stderr()).toContain('SIGTERM')
  })

  it('binds exactly the --port asked for, and exits 0 on SIGINT', async () => {
    const port = await freeUdpPort()
    const testnet = run([bin, '--port', String(port), '--size', '2'])
    expect(await testnet.nextLine('BOOTSTRAP line')).toBe(`BOOTSTRAP=127.0.0.1:${port}`)
    testnet.child.kill('SIGINT')
    expect(await testnet.exit()).toEqual({ code: 0, signal: null })
  })

  it('runs one node per --hosts address, each bound to exactly that address', async () => {
    const testnet = run([bin, '--hosts', '127.0.0.2,127.0.0.3,127.0.0.4'])
    const line = await testnet.nextLine('BOOTSTRAP line')
    expect(line).toMatch(/^BOOTSTRAP=127\.0\.0\.2:\d+$/)
    const client = new HyperDHT({ bootstrap: parseBootstrap(line.slice('BOOTSTRAP='.length)), host: '127.0.0.1', firewalled: false })
    onTestFinished(() => client.destroy())
    await within(10_000, 'client bootstrap', client.fullyBootstrapped())
    // The nodes past the bootstrap one answered from their own addresses (bound to 0.0.0.0
    // they would answer from 127.0.0.1); the bootstrap node stays out of a client's table.
    const hosts = new Set(client.toArray().map((node: { host: string }) => node.host))
    expect([...hosts].sort()).toEqual(['127.0.0.3', '127.0.0.4'])
    testnet.child.kill('SIGTERM')
    expect(await testnet.exit()).toEqual({ code: 0, signal: null })
  })

  it('fails with exit 1 when the --port is taken, instead of moving to another port', async () => {
    const holder = run([bin])
    const taken = (await holder.nextLine('BOOTSTRAP line')).split(':')[1] as string
    const second = run([bin, `--port=${taken}`])
    expect((await second.exit()).code).toBe(1)
    expect(second.stderr()).toMatch(/^arus-testnet: /)
  })

  it.each([
    [['--bogus'], 'unknown argument'],
    [['--port', 'x'], '--port must be an integer'],
    [['--size', '0'], '--size must be in 1..32'],
    [['--host', '0.0.0.0'], '--host must be a dialable IPv4 address'],
    [['--host'], '--host needs a value'],
    [['--hosts', '127.0.0.2,127.0.0.2'], '--hosts must list 1..32 distinct'],
    [['--hosts', '127.0.0.2,nope'], '--hosts must list 1..32 distinct']
  ])('rejects %j with exit 2 and a usage message', async (args, message) => {
    const proc = run([bin, ...args])
    expect((await proc.exit()).code).toBe(2)
    expect(proc.stderr()).toContain(message)
    expect(proc.stderr()).toContain('Usage: arus-testnet')
  })
})
