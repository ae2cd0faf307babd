import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { z } from 'zod'
import {
  COMMON_ERROR_REASONS, MAX_REGISTER_PAYLOAD_BYTES, MAX_REQUEST_BYTES, METHODS, RegisterPayload, RPC_ERROR_CODES,
  RPC_ERROR_REASONS, SESSION_SIGNED_PREFIX, type RpcMethod
} from '@arus/rpc'

// docs/rpc-protocol.md is the contract third parties implement from; these
// checks fail as soon as the package and the page drift apart.
const doc = readFileSync(new URL('../../../docs/rpc-protocol.md', import.meta.url), 'utf8')

/** The text from `heading` up to the next heading of the same or a higher level. */
function section (heading: string): string {
  const start = doc.indexOf(`\n${heading}\n`)
  if (start < 0) throw new Error(`docs/rpc-protocol.md has no "${heading}" heading`)
  const level = heading.split(' ')[0] ?? '##'
  const rest = doc.slice(start + heading.length + 2)
  const next = rest.search(new RegExp(`^#{2,${level.length}} `, 'm'))
  return next < 0 ? rest : rest.slice(0, next)
}

/** Rows of the first column of every table in `text`, as backticked names. */
function firstColumn (text: string): string[] {
  return [...text.matchAll(/^\| `([^`]+)` \|/gm)].map((m) => m[1] ?? '')
}

function tableRows (text: string): Map<string, string[]> {
  const rows = new Map<string, string[]>()
  for (const m of text.matchAll(/^\| `([^`]+)` \|(.*)\|$/gm)) rows.set(m[1] ?? '', (m[2] ?? '').split('|').map((c) => c.trim()))
  return rows
}

const methods = Object.keys(METHODS) as RpcMethod[]
const shapeKeys = (schema: unknown): string[] => Object.keys((schema as z.ZodObject).shape)

describe('docs/rpc-protocol.md', () => {
  it('documents every method with every request and reply field', () => {
    for (const method of methods) {
      const text = section(`### \`${method}\``)
      const fields = new Set(firstColumn(text))
      for (const key of [...shapeKeys(METHODS[method].request), ...shapeKeys(METHODS[method].reply)]) {
        expect(fields, `${method}.${key}`).toContain(key)
      }
    }
    const registerFields = new Set(firstColumn(section('### `register`')))
    for (const key of shapeKeys(RegisterPayload)) expect(registerFields, `RegisterPayload.${key}`).toContain(key)
  })

  it('names each method\'s own error strings in its section', () => {
    for (const method of methods) {
      const text = section(`### \`${method}\``)
      for (const reason of METHODS[method].errors) expect(text, `${method} → ${reason}`).toContain(`\`${reason}\``)
    }
  })

  it('lists exactly the package\'s error strings, with the methods that send them', () => {
    const rows = tableRows(section('## Error strings'))
    expect([...rows.keys()].sort()).toEqual(Object.keys(RPC_ERROR_REASONS).sort())
    for (const [reason, [methodsCell, meaning]] of rows) {
      expect(meaning, reason).toBe(RPC_ERROR_REASONS[reason as keyof typeof RPC_ERROR_REASONS])
      const expected = (COMMON_ERROR_REASONS as readonly string[]).includes(reason)
        ? ['all']
        : methods.filter((m) => (METHODS[m].errors as readonly string[]).includes(reason))
      expect(methodsCell?.split(',').map((s) => s.trim()), reason).toEqual(expected)
    }
  })

  it('lists exactly the client error codes', () => {
    const rows = tableRows(section('## Client errors (`@arus/rpc`)'))
    expect([...rows.keys()].sort()).toEqual(Object.keys(RPC_ERROR_CODES).sort())
    for (const [code, [meaning]] of rows) expect(meaning, code).toBe(RPC_ERROR_CODES[code as keyof typeof RPC_ERROR_CODES])
  })

  it('states the limits and the session signed-bytes prefix the code uses', () => {
    expect(doc).toContain(`${MAX_REQUEST_BYTES} bytes`)
    expect(doc).toContain(`${MAX_REGISTER_PAYLOAD_BYTES} bytes`)
    expect(doc).toContain(`'${SESSION_SIGNED_PREFIX.replace('\n', '\\n')}'`)
    expect(doc).toContain('`unknown method`')
  })
})
