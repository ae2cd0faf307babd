import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { generateSigningKeyPair, toHex } from '@arus/crypto'
import { RpcError } from '@arus/rpc'
import { createTestnet, linkToPanel, startPanel, tmpDir, viewerLogin } from '@arus/testkit'
import { openPanelReadView } from '../src/open.js'

// Migration to grant groups (issue 43): the built panel daemon boots on a copy of a data
// directory written before them (fixtures/README.md). Its boot reconcile moves every user record
// into the grouped layout, each written once; every active user then logs in through the RPC and
// opens exactly the stream keys it was granted; a second boot appends nothing.

const FIXTURE = fileURLToPath(new URL('./fixtures/panel-before-groups.tar.gz', import.meta.url))
interface Fixture {
  panelKey: string
  users: Record<string, { password: string; status: 'active' | 'disabled'; grants: string[] }>
  streamKeys: Record<string, string>
  catalog: { length: number; byteLength: number }
}
const fixture = JSON.parse(readFileSync(new URL('./fixtures/panel-before-groups.json', import.meta.url), 'utf8')) as Fixture

/** The catalog core as stored, read beside (or after) the daemon. */
async function coreOf (dataDir: string): Promise<{ length: number; byteLength: number }> {
  const view = await openPanelReadView(dataDir)
  try {
    const { length, byteLength } = view.catalog.stats()
    return { length, byteLength }
  } finally {
    await view.close()
  }
}

describe('grant groups: migration of a panel from before them', () => {
  it('boots it: each user record rewritten once, every active user logs in with its keys, the next boot writes nothing', async (t) => {
    const root = tmpDir(t, 'panel-migrate-')
    execFileSync('tar', ['xzf', FIXTURE, '-C', root], { timeout: 30_000 })
    const dataDir = join(root, 'panel')
    expect(await coreOf(dataDir)).toEqual(fixture.catalog)
    const testnet = await createTestnet(t)
    const panel = await startPanel(t, { testnet, dataDir, existingPanelKey: fixture.panelKey, adminApi: false })
    const link = await linkToPanel(t, testnet, fixture.panelKey)
    await link.reader.update({ wait: true })

    // What the boot wrote: each user once (disabled cat too: it holds nothing now), and the groups.
    const written: string[] = []
    for await (const e of link.reader.bee.createHistoryStream({ gte: fixture.catalog.length })) written.push(e.key as string)
    const users = Object.keys(fixture.users).sort()
    expect(written.filter((k) => k.startsWith('user/')).sort()).toEqual(users.map((u) => `user/${u}`))
    expect(written.filter((k) => !k.startsWith('user/')).sort()).toEqual(['grp/auto', 'grp/p.basic', 'grp/p.sports'])
    for (const u of users) {
      const record = (await link.reader.getUser(u))!
      expect(record.groups, u).toBeDefined()
      if (fixture.users[u]!.status === 'disabled') expect({ groups: record.groups, wrapped: record.wrapped }).toEqual({ groups: {}, wrapped: {} })
    }
    expect(Object.keys((await link.reader.getUser('bob'))!.wrapped)).toEqual(['film']) // only the manual grant is its own

    for (const [username, u] of Object.entries(fixture.users)) {
      const login = viewerLogin(link.rpc, link.reader, { username, password: u.password, device: generateSigningKeyPair() })
      if (u.status === 'disabled') {
        const err = await login.then(() => null, (e: unknown) => e)
        expect((err as RpcError).reason, username).toBe('disabled')
        continue
      }
      const { keys } = await login
      expect(Object.fromEntries([...keys].map(([id, k]) => [id, toHex(k)])), username)
        .toEqual(Object.fromEntries(u.grants.map((id) => [id, fixture.streamKeys[id]])))
    }

    await panel.stop()
    const first = await coreOf(dataDir)
    await panel.start()
    await panel.stop()
    expect(await coreOf(dataDir)).toEqual(first)
  })
})
