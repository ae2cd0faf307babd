/**
 * Regenerates the marked sections of docs/broadcaster.md (environment, CLI, routes, errors).
 * Run from the repository root: `pnpm exec tsx apps/broadcaster/scripts/gen-docs.ts`.
 * apps/broadcaster/test/docs.test.ts fails while the page is stale.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { DOC_PATH, renderDoc } from './docs.js'

const before = await readFile(DOC_PATH, 'utf8')
const after = await renderDoc(before)
if (after === before) console.log('docs/broadcaster.md is up to date')
else {
  await writeFile(DOC_PATH, after)
  console.log('docs/broadcaster.md updated')
}
