import { execFile } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'

const fixture = fileURLToPath(new URL('./fixtures/jit-child.ts', import.meta.url))
const repoRoot = fileURLToPath(new URL('../../..', import.meta.url))

/** Machine code (bytes) that 200 fresh functions, each called once, added in a child process. */
async function codeGrowth (mode: 'run' | 'plain'): Promise<number> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fixture, mode], { cwd: repoRoot, timeout: 20_000 })
  const line = stdout.trim().split('\n').find((l) => l.startsWith('{"codeGrowth"'))
  if (line === undefined) throw new Error(`no result from the fixture: ${stdout}`)
  return (JSON.parse(line) as { codeGrowth: number }).codeGrowth
}

describe('daemon V8 flags (docs/architecture.md "Edit propagation")', () => {
  it("a daemon's run compiles a function to machine code the first time it runs; without it the function is interpreted", async () => {
    const [inRun, plain] = await Promise.all([codeGrowth('run'), codeGrowth('plain')])
    // 200 baseline-compiled functions are tens of KiB of code; interpreted ones add none of their own.
    expect(inRun).toBeGreaterThan(200 * 100)
    expect(plain).toBeLessThan(inRun / 4)
  }, 30_000)
})
