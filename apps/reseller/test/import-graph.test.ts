import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'

// The reseller's modules import each other one way (issue 44 item 11): the account operations
// sit on the settle, the settle on the record appliers, and the principals' operations on
// their own limits, as the panel's ops do. Every relative import or re-export counts, type-only
// ones too (a type cycle is still two modules that cannot be read apart).

const SRC = fileURLToPath(new URL('../src/', import.meta.url))

function sources (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = join(dir, e.name)
    return e.isDirectory() ? sources(p) : e.name.endsWith('.ts') ? [p] : []
  })
}

/** Module → the modules it imports or re-exports, as paths relative to src/. */
function importGraph (files: readonly string[]): Map<string, string[]> {
  const name = (p: string) => relative(SRC, p).replace(/\.ts$/, '')
  return new Map(files.map((f) => [
    name(f),
    [...readFileSync(f, 'utf8').matchAll(/^(?:import|export)\b[^'"]*?\bfrom\s+'(\.{1,2}\/[^']+)\.js'|^import\s+'(\.{1,2}\/[^']+)\.js'/gm)]
      .map((m) => name(resolve(dirname(f), (m[1] ?? m[2])! + '.ts')))
  ]))
}

/** Every module that can reach itself through its imports, sorted. */
function onCycles (graph: Map<string, string[]>): string[] {
  const reaches = (from: string, to: string): boolean => {
    const seen = new Set<string>()
    const stack = [...(graph.get(from) ?? [])]
    while (stack.length > 0) {
      const n = stack.pop()!
      if (n === to) return true
      if (seen.has(n)) continue
      seen.add(n)
      stack.push(...(graph.get(n) ?? []))
    }
    return false
  }
  return [...graph.keys()].filter((m) => reaches(m, m)).sort()
}

describe('reseller modules', () => {
  it('import each other one way: no cycle anywhere under src/', () => {
    const graph = importGraph(sources(SRC))
    expect(graph.size).toBeGreaterThan(30)
    expect(onCycles(graph)).toEqual([])
  })

  it('finds a cycle when there is one (the check itself)', () => {
    expect(onCycles(new Map([['a', ['b']], ['b', ['c']], ['c', ['a']], ['d', ['a']]]))).toEqual(['a', 'b', 'c'])
    expect(onCycles(new Map([['a', ['b']], ['b', []]]))).toEqual([])
  })
})
