import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { pendingTeardowns, runBin, runBinJson, runCliInProcess, spawnBroadcasterDaemon, spawnPanelDaemon, spawnTestnetDaemon, tmpDir, TestkitError, type TestContextLike } from '@arus/testkit'

// A stand-in bin: echoes its args and first stdin line as JSON, exits with ARUS_EXIT; `hang` never ends.
const BIN = `
const args = process.argv.slice(2)
if (args.includes('hang')) setInterval(() => {}, 1000)
else {
  let input = ''
  process.stdin.on('data', (c) => { input += c }).on('end', () => {
    console.log(JSON.stringify({ args, line: input.split('\\n')[0] }))
    console.error('to stderr')
    process.exitCode = Number(process.env.ARUS_EXIT ?? 0)
  })
}
`
const fakeBin = (t: TestContextLike): string => {
  const file = join(tmpDir(t), 'bin.mjs')
  writeFileSync(file, BIN)
  return file
}

describe('runBin / runBinJson', () => {
  it('runs a bin to its end with stdin, env and output', async (t) => {
    const bin = fakeBin(t)
    expect(await runBin(bin, ['a', 'b'], { input: 'secret\nrest' })).toEqual({ code: 0, signal: null, stdout: '{"args":["a","b"],"line":"secret"}', stderr: 'to stderr\n' })
    expect(await runBinJson(bin, ['x'])).toEqual({ args: ['--json', 'x'], line: '' })
    await expect(runBinJson(bin, ['x'], { env: { ARUS_EXIT: '3' } })).rejects.toThrow(/exited 3: to stderr/)
  })

  it('kills a run past its bound, and an abort stops it and rejects with the reason', async (t) => {
    const bin = fakeBin(t)
    expect(await runBin(bin, ['hang'], { timeoutMs: 200 })).toMatchObject({ code: null, signal: 'SIGKILL' })
    const before = pendingTeardowns()
    const stop = new AbortController()
    const running = runBin(bin, ['hang'], { signal: stop.signal })
    setTimeout(() => stop.abort(new Error('user stop')), 100)
    await expect(running).rejects.toThrow('user stop')
    expect(pendingTeardowns()).toBe(before)
    await expect(runBin(bin, [], { signal: stop.signal })).rejects.toThrow('user stop')
  })
})

describe('runCliInProcess', () => {
  it("runs a CLI's main with argv, env and stdin, capturing its output", async () => {
    const r = await runCliInProcess(async (argv, io) => {
      let input = ''
      for await (const chunk of io.stdin) input += String(chunk)
      io.stdout.write(JSON.stringify({ argv, input, x: io.env.X }))
      io.stderr.write('warned')
      return 2
    }, 'arus-x', ['a'], { env: { X: '1' }, input: 'pw\n' })
    expect(r).toEqual({ code: 2, stdout: '{"argv":["node","arus-x","a"],"input":"pw\\n","x":"1"}', stderr: 'warned' })
  })
})

describe('daemon starters', () => {
  it('spawnTestnetDaemon resolves the BOOTSTRAP of an arus-testnet process', async (t) => {
    const { proc, bootstrap } = await spawnTestnetDaemon(t)
    expect(bootstrap).toMatch(/^127\.0\.0\.1:\d+(,127\.0\.0\.1:\d+)*$/)
    expect(await proc.stop()).toEqual({ code: 0, signal: null })
  })

  it('a start-up that fails stops its process (no daemon left behind)', async (t) => {
    const dataDir = tmpDir(t)
    const before = pendingTeardowns()
    const error = await spawnPanelDaemon(undefined, { DATA_DIR: dataDir }, { readyTimeoutMs: 1 }).catch((err: unknown) => err)
    expect(error).toBeInstanceOf(TestkitError)
    expect(pendingTeardowns()).toBe(before)
  })

  it('refuses a LOG_LEVEL that hides the ready line', async () => {
    await expect(spawnBroadcasterDaemon(undefined, { LOG_LEVEL: 'warn' })).rejects.toMatchObject({ code: 'TESTKIT_BAD_OPTION' })
  })
})
