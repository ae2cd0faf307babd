import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { ARUS_BINS, createTestnet, runBin, runCliInProcess, spawnRepeaterDaemon, tmpDir } from '@arus/testkit'
import { runCli } from '../src/cli.js'

const run = promisify(execFile)
const KEY = 'ab'.repeat(32)

describe('arus-repeater CLI', () => {
  it('check-env names each bad variable; key is stable; status needs STATUS_PORT', async (t) => {
    const bad = await runCliInProcess(runCli, 'arus-repeater', ['check-env'], { env: { PANEL_PUBKEY: 'nope', CHANNELS: 'category:', MAX_DISK_MB: '0' } })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/PANEL_PUBKEY/)
    expect(bad.stderr).toMatch(/CHANNELS/)
    expect(bad.stderr).toMatch(/MAX_DISK_MB/)
    expect((await runCliInProcess(runCli, 'arus-repeater', ['check-env'], { env: { PANEL_PUBKEY: KEY } })).code).toBe(0)

    const dir = tmpDir(t, 'arus-rep-cli-')
    const first = await runCliInProcess(runCli, 'arus-repeater', ['--json', 'key'], { env: { DATA_DIR: dir } })
    const second = await runCliInProcess(runCli, 'arus-repeater', ['--json', 'key'], { env: { DATA_DIR: dir } })
    expect(JSON.parse(first.stdout).publicKey).toMatch(/^[0-9a-f]{64}$/)
    expect(second.stdout).toBe(first.stdout)
    const seed = await readFile(join(dir, 'private', 'swarm-seed'))
    expect(seed.byteLength).toBe(32)
    expect(first.stdout).not.toContain(seed.toString('hex'))

    const status = await runCliInProcess(runCli, 'arus-repeater', ['status'], { env: { PANEL_PUBKEY: KEY } })
    expect(status.code).toBe(1)
    expect(status.stderr).toMatch(/REPEATER_NOT_RUNNING|STATUS_PORT is 0/)
  })

  it('opens no listening socket without STATUS_PORT; logs and answers no secret', async (t) => {
    const net = await createTestnet(t)
    const dir = tmpDir(t, 'arus-rep-run-')
    const env = { DATA_DIR: dir, PANEL_PUBKEY: KEY, BOOTSTRAP: net.bootstrapString }
    const key = await runBin(ARUS_BINS.repeater, ['key'], { env })
    expect(key.code).toBe(0)
    const { proc, url } = await spawnRepeaterDaemon(t, env)
    expect(url).toBeNull()
    const { stdout } = await run('ss', ['-ltnpH'])
    expect(stdout).not.toContain(`pid=${proc.child.pid!},`)
    const seed = (await readFile(join(dir, 'private', 'swarm-seed'))).toString('hex')
    await proc.stop()
    expect(proc.stdoutLines().join('\n')).not.toContain(seed)
  })
})
