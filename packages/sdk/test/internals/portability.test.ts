import { readdirSync, readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const src = fileURLToPath(new URL('../../src/', import.meta.url))

function files (dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []))
}

// Spec 3 point 6 / ARCHITECTURE.md: the engine core reaches Node only through the injected
// runtime, so it can later run in Bare. Only the default factory may import Node built-ins.
it('no engine file but node-runtime.ts imports a Node built-in', () => {
  const builtins = new Set(builtinModules.flatMap((m) => [m, `node:${m}`]))
  const offenders: string[] = []
  for (const file of files(src)) {
    const rel = relative(src, file)
    for (const m of readFileSync(file, 'utf8').matchAll(/\b(?:from|import)\s*\(?\s*'([^']+)'/g)) {
      if (builtins.has(m[1] as string) && rel !== 'node-runtime.ts') offenders.push(`${rel}: ${m[1]}`)
    }
  }
  expect(offenders).toEqual([])
  expect(readFileSync(join(src, 'node-runtime.ts'), 'utf8')).toMatch(/from 'node:http'/)
})
