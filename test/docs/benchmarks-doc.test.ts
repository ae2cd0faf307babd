import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

// docs/benchmarks.md is a reference page (issue 44 item 13): each benchmark's method and its
// current figures. How the figures got there (pass-by-pass logs of a performance issue) lives
// in git, not between the tables. The blocks the bench scripts write stay whole.
const doc = readFileSync(new URL('../../docs/benchmarks.md', import.meta.url), 'utf8')
const lines = doc.split('\n')
const headings = lines.filter((l) => /^#{1,6} /.test(l))

/** Lines the page may hold: its sections and generated blocks with room to grow, not a log. */
const LINE_BUDGET = 800

describe('docs/benchmarks.md', () => {
  it('carries no pass-by-pass log and stays under its line budget', () => {
    expect(headings.filter((h) => /\bpass(es)?\b/i.test(h))).toEqual([])
    expect(lines.length).toBeLessThan(LINE_BUDGET)
  })

  it("keeps every benchmark's section and every generated block whole", () => {
    for (const section of ['## Broadcaster', '## Viewer SDK', '## Panel admin API', '## Viewer and origin', '## Report storm', '## Library ingest', '## Engine worklet (Bare)', '## Swarm under real networks', '## Repeater cost', '## Swarm with a repeater']) {
      expect(headings.some((h) => h.startsWith(section)), section).toBe(true)
    }
    const begins = [...doc.matchAll(/<!-- ([\w-]+):begin -->/g)].map((m) => m[1]!)
    expect(begins).toEqual(expect.arrayContaining(['bench', 'bench-broadcaster', 'bench-reports', 'bench-library', 'bench-worklet', 'bench-swarm', 'bench-repeater', 'bench-swarm-repeater']))
    for (const name of begins) {
      expect(doc.split(`<!-- ${name}:begin -->`).length, name).toBe(2)
      expect(doc.indexOf(`<!-- ${name}:end -->`), name).toBeGreaterThan(doc.indexOf(`<!-- ${name}:begin -->`))
    }
  })
})
