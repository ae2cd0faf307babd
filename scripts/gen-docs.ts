/**
 * Regenerates every daemon's reference: the marked sections of its docs pages (environment,
 * CLI, routes, errors) and its whole `.env.example`. Run from the repository root:
 * `pnpm exec tsx scripts/gen-docs.ts`. test/docs/reference.test.ts fails while one is stale.
 */
import { register } from 'node:module'

// Resolve @arus/* to package sources, as vitest does, before anything imports them.
register('./docs/alias-hooks.mjs', import.meta.url)
const { writeReference } = await import('@arus/service')
const { REFERENCES, REPO_ROOT } = await import('./docs/references.js')

for (const ref of REFERENCES) {
  const written = await writeReference(ref, REPO_ROOT)
  console.log(`${ref.bin}: ${written.length === 0 ? 'up to date' : `updated ${written.join(', ')}`}`)
}
