import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { CATALOG_ERROR_CODES, CatalogError } from '@arus/catalog'

const root = fileURLToPath(new URL('..', import.meta.url))

async function sources (dir: string): Promise<string[]> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(...await sources(path))
    else if (entry.name.endsWith('.ts')) out.push(await readFile(path, 'utf8'))
  }
  return out
}

describe('error codes', () => {
  it('every code used in src is listed in CATALOG_ERROR_CODES, and every listed code is used', async () => {
    const text = (await sources(join(root, 'src'))).join('\n')
    const used = new Set([...text.matchAll(/new CatalogError\('(CATALOG_[A-Z_]+)'/g)].map((m) => m[1]))
    expect([...used].sort()).toEqual(Object.keys(CATALOG_ERROR_CODES).sort())
  })

  it('the README documents every code', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8')
    for (const code of Object.keys(CATALOG_ERROR_CODES)) expect(readme, code).toContain(`\`${code}\``)
  })

  it('CatalogError carries code and fields', () => {
    const err = CatalogError.invalidRecord('catalog/x', [{ field: 'order', message: 'too big' }])
    expect(err).toBeInstanceOf(Error)
    expect(err).toMatchObject({ name: 'CatalogError', code: 'CATALOG_INVALID_RECORD', fields: ['order'] })
    expect(err.message).toBe('invalid record for catalog/x: order: too big')
  })
})
