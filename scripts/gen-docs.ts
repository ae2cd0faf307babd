/**
 * Regenerates the marked sections of docs/panel.md (environment and CLI tables).
 * Run from the repository root: `pnpm exec tsx scripts/gen-docs.ts`.
 * test/docs/panel-doc.test.ts fails while the page is stale.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { register } from 'node:module'

// Resolve @arus/* to package sources, as vitest does, before anything imports them.
register('./docs/alias-hooks.mjs', import.meta.url)
const { PANEL_DOC_PATH, renderPanelDoc } = await import('./docs/panel-doc.js')

const before = await readFile(PANEL_DOC_PATH, 'utf8')
const after = renderPanelDoc(before)
if (after === before) {
  console.log('docs/panel.md is up to date')
} else {
  await writeFile(PANEL_DOC_PATH, after)
  console.log('docs/panel.md updated')
}
