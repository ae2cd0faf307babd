import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { GEN_DOCS_COMMAND, PANEL_DOC_PATH, renderCliTable, renderEnvTable, renderPanelDoc, replaceSection } from '../../scripts/docs/panel-doc.js'

// docs/panel.md's environment and CLI tables are generated from the panel's env schema and
// commander program; the page must be what the generator would write today.
const doc = readFileSync(PANEL_DOC_PATH, 'utf8')

describe('docs/panel.md', () => {
  it('has the generated sections up to date', () => {
    const stale = `docs/panel.md is stale: run \`${GEN_DOCS_COMMAND}\``
    expect(doc, stale).toBe(renderPanelDoc(doc))
  })

  it('has one row per variable and per command', () => {
    const envRows = renderEnvTable().split('\n').filter((l) => l.startsWith('| `'))
    expect(envRows.length).toBeGreaterThan(0)
    for (const row of envRows) expect(doc).toContain(row)
    const cliRows = renderCliTable().split('\n').filter((l) => l.startsWith('| `'))
    expect(cliRows.map((r) => /^\| `([^`]+)`/.exec(r)?.[1])).toContain('run')
    for (const row of cliRows) expect(doc).toContain(row)
  })

  it('refuses a page without its markers', () => {
    expect(() => replaceSection('no markers here', 'env', 'x')).toThrow(/env:begin/)
    expect(replaceSection('a <!-- env:begin -->old<!-- env:end --> b', 'env', 'new'))
      .toBe('a <!-- env:begin -->\nnew\n<!-- env:end --> b')
  })
})
