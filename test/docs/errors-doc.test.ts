import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { CATALOG_ERROR_CODES } from '@arus/catalog'
import { CONFIG_ERROR_CODES } from '@arus/config-snapshots'
import { CRYPTO_ERROR_CODES } from '@arus/crypto'
import { REPORTS_ERROR_CODES } from '@arus/reports'
import { FEED_ERROR_CODES } from '@arus/feed'
import { RPC_ERROR_CODES, RPC_ERROR_REASONS } from '@arus/rpc'
import { SERVICE_ERROR_CODES } from '@arus/service'
import { SWARM_ERROR_CODES } from '@arus/swarm'
import { TESTKIT_ERROR_CODES } from '@arus/testkit'
import { LAB_ERROR_CODES } from '@arus/lab'
import { PANEL_ERROR_CODES } from '../../apps/panel/src/errors.js'
import { BROADCASTER_ERROR_CODES } from '../../apps/broadcaster/src/errors.js'
import { LIBRARY_ERROR_CODES } from '../../apps/library/src/errors.js'
import { RESELLER_ERROR_CODES } from '../../apps/reseller/src/errors.js'
import { REPEATER_ERROR_CODES } from '../../apps/repeater/src/errors.js'
import { SDK_ERROR_CODES } from '@arus/sdk'

// docs/errors.md is the operator's and integrator's list of every code; these checks fail as
// soon as a code table and the page drift apart (pure parse and compare, no I/O beyond the read).
const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8')

/** What the page must say about one code: its HTTP cell ('—' when it never crosses HTTP) and meaning. */
interface Expected { http?: string; meaning: string }

const NO_HTTP = '—'

/** `code → one-line meaning` tables (errors that carry no HTTP status). */
const plain = (table: Record<string, string>): Map<string, Expected> =>
  new Map(Object.entries(table).map(([code, meaning]) => [code, { http: NO_HTTP, meaning }]))

/** `code → {status, meaning}` tables (the kit's ErrorTable shape). */
const withStatus = (table: Record<string, { status: number; meaning: string }>): Map<string, Expected> =>
  new Map(Object.entries(table).map(([code, v]) => [code, { http: String(v.status), meaning: v.meaning }]))

/** Section heading (`## ...`) → the rows its table must hold, exactly. */
const SECTIONS = new Map<string, Map<string, Expected>>([
  ['@arus/crypto', plain(CRYPTO_ERROR_CODES)],
  ['@arus/service', withStatus(SERVICE_ERROR_CODES)],
  ['@arus/config-snapshots', withStatus(CONFIG_ERROR_CODES)],
  ['@arus/reports', withStatus(REPORTS_ERROR_CODES)],
  ['@arus/swarm', plain(SWARM_ERROR_CODES)],
  ['@arus/catalog', plain(CATALOG_ERROR_CODES)],
  ['@arus/feed', plain(FEED_ERROR_CODES)],
  ['@arus/rpc', plain(RPC_ERROR_CODES)],
  ['RPC in-band error strings (@arus/rpc)', new Map(Object.entries(RPC_ERROR_REASONS).map(([reason, meaning]) => [reason, { meaning }]))],
  ['arus-panel (apps/panel)', withStatus(PANEL_ERROR_CODES)],
  ['arus-broadcaster (apps/broadcaster)', withStatus(BROADCASTER_ERROR_CODES)],
  ['arus-library (apps/library)', withStatus(LIBRARY_ERROR_CODES)],
  ['arus-repeater (apps/repeater)', withStatus(REPEATER_ERROR_CODES)],
  ['arus-reseller (apps/reseller)', withStatus(RESELLER_ERROR_CODES)],
  ['@arus/sdk', plain(SDK_ERROR_CODES)],
  ['@arus/testkit (test-only)', plain(TESTKIT_ERROR_CODES)],
  ['@arus/lab (test and benchmark only)', plain(LAB_ERROR_CODES)]
])

/** Markdown cell text back to plain text: `\|`, `\<`, `\>` unescaped. */
const unescape = (cell: string) => cell.replace(/\\([|<>])/g, '$1')

/**
 * Table rows whose first cell is a backticked name, grouped by the `## ` heading above
 * them: heading → name → the remaining cells. Header and separator rows are skipped.
 */
function parseTables (text: string): Map<string, Map<string, string[]>> {
  const sections = new Map<string, Map<string, string[]>>()
  let heading = '(before the first heading)'
  let inFence = false
  for (const line of text.split('\n')) {
    if (line.trimStart().startsWith('```')) inFence = !inFence
    if (inFence) continue
    const h2 = /^## (.+)$/.exec(line)
    if (h2) { heading = (h2[1] ?? '').trim(); continue }
    if (!/^\|.*\|\s*$/.test(line)) continue
    const cells = line.trim().slice(1, -1).split(/(?<!\\)\|/).map((c) => unescape(c.trim()))
    const name = /^`([^`]+)`$/.exec(cells[0] ?? '')?.[1]
    if (name === undefined) continue
    const rows = sections.get(heading) ?? new Map<string, string[]>()
    if (rows.has(name)) throw new Error(`docs/errors.md lists ${name} twice under "${heading}"`)
    rows.set(name, cells.slice(1))
    sections.set(heading, rows)
  }
  return sections
}

const tables = parseTables(doc)

describe('docs/errors.md', () => {
  it('has a table for each code table, and no code rows elsewhere', () => {
    expect([...tables.keys()].sort()).toEqual([...SECTIONS.keys()].sort())
  })

  for (const [heading, expected] of SECTIONS) {
    describe(heading, () => {
      const rows = tables.get(heading) ?? new Map<string, string[]>()

      it('lists every code of the table', () => {
        const missing = [...expected.keys()].filter((code) => !rows.has(code))
        expect(missing, `codes missing from docs/errors.md under "## ${heading}"`).toEqual([])
      })

      it('lists no code the table lacks', () => {
        const unknown = [...rows.keys()].filter((code) => !expected.has(code))
        expect(unknown, `codes under "## ${heading}" that no table has`).toEqual([])
      })

      it('gives each code its HTTP status and meaning', () => {
        for (const [code, cells] of rows) {
          const want = expected.get(code)
          if (!want) continue
          const [http, meaning] = want.http === undefined ? [undefined, cells[0]] : [cells[0], cells[1]]
          expect(cells.length, `${code}: column count`).toBe(want.http === undefined ? 1 : 2)
          if (want.http !== undefined) expect(http, `${code}: HTTP`).toBe(want.http)
          expect(meaning, `${code}: meaning`).toBe(want.meaning)
        }
      })
    })
  }

  it('links the in-band strings to the RPC protocol page', () => {
    expect(doc).toContain('(rpc-protocol.md#error-strings)')
  })
})

describe('coverage of code tables', () => {
  it('documents every *_ERROR_CODES table declared anywhere in packages/ and apps/', async () => {
    const { readdirSync, existsSync } = await import('node:fs')
    const root = new URL('../../', import.meta.url)
    const covered = new Set(['CRYPTO_ERROR_CODES', 'SERVICE_ERROR_CODES', 'CONFIG_ERROR_CODES', 'REPORTS_ERROR_CODES', 'SWARM_ERROR_CODES', 'CATALOG_ERROR_CODES', 'FEED_ERROR_CODES', 'RPC_ERROR_CODES', 'PANEL_ERROR_CODES', 'TESTKIT_ERROR_CODES', 'BROADCASTER_ERROR_CODES', 'LIBRARY_ERROR_CODES', 'RESELLER_ERROR_CODES', 'SDK_ERROR_CODES', 'LAB_ERROR_CODES', 'REPEATER_ERROR_CODES'])
    const declared: string[] = []
    const walk = (dir: URL): void => {
      if (!existsSync(dir)) return
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        if (entry.isDirectory()) walk(new URL(`${entry.name}/`, dir))
        else if (entry.name.endsWith('.ts')) {
          for (const m of readFileSync(new URL(entry.name, dir), 'utf8').matchAll(/export const ([A-Z][A-Z_]*_ERROR_CODES)\b/g)) declared.push(m[1]!)
        }
      }
    }
    for (const top of ['packages', 'apps']) {
      for (const pkg of readdirSync(new URL(`${top}/`, root))) walk(new URL(`${top}/${pkg}/src/`, root))
    }
    expect(declared.filter((name) => !covered.has(name)), 'add these tables to docs/errors.md and to this test').toEqual([])
  })
})
