import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { configDocs } from '@arus/service'
import { broadcasterEnvSchema } from '../src/config.js'
import { BROADCASTER_ERROR_CODES } from '../src/errors.js'
import { DOC_PATH, GEN_DOCS_COMMAND, renderDoc, renderEnvTable, renderErrorsTable, replaceSection } from '../scripts/docs.js'

// docs/broadcaster.md's environment, CLI, route and error tables are generated from the
// schema, the commander program, the route table and the code table; .env.example names
// every variable. These checks fail as soon as one drifts.
const doc = readFileSync(DOC_PATH, 'utf8')
const envExample = readFileSync(new URL('../.env.example', import.meta.url), 'utf8')

describe('docs/broadcaster.md', () => {
  it('has the generated sections up to date', async () => {
    expect(doc, `docs/broadcaster.md is stale: run \`${GEN_DOCS_COMMAND}\``).toBe(await renderDoc(doc))
  })

  it('has one row per variable and per error code', () => {
    const rows = renderEnvTable().split('\n').filter((l) => l.startsWith('| `'))
    expect(rows).toHaveLength(configDocs(broadcasterEnvSchema).length)
    for (const row of rows) expect(doc).toContain(row)
    const codes = renderErrorsTable().split('\n').filter((l) => l.startsWith('| `'))
    expect(codes).toHaveLength(Object.keys(BROADCASTER_ERROR_CODES).length)
    for (const row of codes) expect(doc).toContain(row)
  })

  it('refuses a page without its markers', () => {
    expect(() => replaceSection('no markers', 'env', 'x')).toThrow(/env:begin/)
  })
})

describe('apps/broadcaster/.env.example', () => {
  it('names every variable of the schema, and no other', () => {
    const names = configDocs(broadcasterEnvSchema).map((d) => d.name)
    const listed = [...envExample.matchAll(/^#?\s*([A-Z][A-Z0-9_]*)=/gm)].map((m) => m[1])
    expect([...new Set(listed)].sort()).toEqual([...names].sort())
  })
})
