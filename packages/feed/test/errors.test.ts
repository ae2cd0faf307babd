import { readFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { FEED_ERROR_CODES, FEED_LAYOUT_VERSION, FeedError } from '@arus/feed'

const root = fileURLToPath(new URL('..', import.meta.url))

async function sources (dir: string): Promise<string> {
  const out: string[] = []
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) out.push(await sources(path))
    else if (entry.name.endsWith('.ts')) out.push(await readFile(path, 'utf8'))
  }
  return out.join('\n')
}

describe('error codes', () => {
  it('every code constructed in src is listed in FEED_ERROR_CODES, and every listed code is constructed', async () => {
    const text = await sources(join(root, 'src'))
    const used = new Set([...text.matchAll(/new FeedError\('(FEED_[A-Z_]+)'/g)].map((m) => m[1]))
    expect([...used].sort()).toEqual(Object.keys(FEED_ERROR_CODES).sort())
  })

  it('the README documents every code and the layout version', async () => {
    const readme = await readFile(join(root, 'README.md'), 'utf8')
    for (const code of Object.keys(FEED_ERROR_CODES)) expect(readme, code).toContain(`\`${code}\``)
    expect(readme).toContain(`FEED_LAYOUT_VERSION\` = ${FEED_LAYOUT_VERSION}`)
  })

  it('FeedError carries its code, name and cause', () => {
    const cause = new Error('inner')
    const err = FeedError.readFailed('/seg1.ts', cause)
    expect(err).toBeInstanceOf(Error)
    expect(err).toMatchObject({ name: 'FeedError', code: 'FEED_READ_FAILED', cause })
    expect(FeedError.badPath('/etc/passwd').message).toContain('/etc/passwd')
  })
})
