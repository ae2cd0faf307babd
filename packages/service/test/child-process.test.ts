import { spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { childPrefix, dieWithParentPrefix, MAX_NICE, nicePrefix } from '../src/index.js'

/** The niceness a shell started behind `prefix` reports for itself (/proc/self/stat field 19). */
function nicenessBehind (prefix: string[]): number {
  const argv = [...prefix, 'sh', '-c', 'cut -d")" -f2 /proc/$$/stat']
  const run = spawnSync(argv[0]!, argv.slice(1), { encoding: 'utf8', timeout: 5000 })
  expect(run.status, run.stderr).toBe(0)
  return Number(run.stdout.trim().split(' ')[16])
}

describe('child command prefixes', () => {
  it('nicePrefix runs the command at that niceness; 0 adds nothing', () => {
    // nice adds to the niceness it starts with (0 unless the suite itself runs niced).
    const base = nicenessBehind([])
    expect(nicePrefix(0)).toEqual([])
    expect(nicePrefix(10)).toEqual(['nice', '-n', '10', '--'])
    expect(nicenessBehind(nicePrefix(10))).toBe(Math.min(MAX_NICE, base + 10))
    expect(nicenessBehind(nicePrefix(MAX_NICE))).toBe(MAX_NICE)
  })

  it('childPrefix is nice, then setpriv (the prefix the broadcaster and the library use)', () => {
    expect(childPrefix(7)).toEqual([...nicePrefix(7), ...dieWithParentPrefix()])
    expect(nicenessBehind(childPrefix(7))).toBe(Math.min(MAX_NICE, nicenessBehind([]) + 7))
  })

  it('refuses a niceness Linux does not have', () => {
    for (const bad of [-1, 20, 1.5, Number.NaN]) expect(() => nicePrefix(bad)).toThrow(RangeError)
  })
})
