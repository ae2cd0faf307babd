// Module resolution hooks for scripts run with tsx: map `@arus/<name>` to
// packages/<name>/src/index.ts, the same alias vitest.config.ts sets up, so a
// script and a test see the same sources (and the same module instances).
import { existsSync } from 'node:fs'

const root = new URL('../../', import.meta.url)

export async function resolve (specifier, context, nextResolve) {
  const match = /^@arus\/([a-z0-9-]+)$/.exec(specifier)
  if (match) {
    const entry = new URL(`packages/${match[1]}/src/index.ts`, root)
    // Hand the file URL on, so tsx's own resolver still marks it as TypeScript.
    if (existsSync(entry)) return nextResolve(entry.href, context)
  }
  return nextResolve(specifier, context)
}
