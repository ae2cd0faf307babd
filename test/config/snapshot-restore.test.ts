import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createPlayer, loginWithRetry, type Player } from '@arus/sdk'
import {
  ARUS_BINS, cleanupAll, collectSecrets, createStack, decodeWithFfmpeg, findSecrets, runBinJson, tmpDir, waitFor,
  type BroadcasterHandle, type PanelHandle, type Stack, type TestContextLike
} from '@arus/testkit'

// Issue 12 "Done means": against the built panel and broadcaster (separate processes, HTTP and
// CLI only) and a real SDK player on a local testnet: snapshot, delete, plan, restore — and the
// viewer plays again with the same grant. Also the refusals (400 without confirm, 409 for a
// template of the other daemon, 404 for traversal ids) and the secret scan of every template
// and config answer, driven by testkit's one list of secret kinds.

const ctx = { onTestFinished: () => {} }
let stack: Stack
let panel: PanelHandle
let bc: BroadcasterHandle
/** Every config answer of both daemons, for the secret scan. */
const answers: Array<{ what: string; text: string }> = []

beforeAll(async () => {
  stack = await createStack(ctx, {
    panel: { users: [{ name: 'alice', password: 'alice-pw' }], env: { CONFIG_SNAPSHOT_KEEP: '6' } },
    broadcasters: [{ env: { CONFIG_SNAPSHOT_KEEP: '6' } }]
  })
  panel = stack.panel
  bc = stack.broadcasters[0]!
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

function newPlayer (t: TestContextLike): Player {
  const player = createPlayer({ panelPubKey: panel.panelKey, storeDir: tmpDir(t, 'arus-viewer-'), swarm: { bootstrap: stack.testnet!.bootstrap } })
  t.onTestFinished(() => player.stop())
  return player
}

/** A fresh player logs in as alice and decodes 2 s of `id`; resolves the key the grant unsealed. */
async function playAsAlice (t: TestContextLike, id: string): Promise<void> {
  const player = newPlayer(t)
  await player.connect()
  await loginWithRetry(player, 'alice', 'alice-pw', { attempts: 40, delayMs: 500 })
  const { url } = await player.resolve(id)
  const decoded = await decodeWithFfmpeg(url, 2, { timeoutMs: 60_000 })
  expect(decoded.code, decoded.stderr).toBe(0)
  await player.stop()
}

async function keep<T> (what: string, p: Promise<T>): Promise<T> {
  const v = await p
  answers.push({ what, text: JSON.stringify(v) })
  return v
}

const planOf = (reply: { sections: Record<string, { added: string[]; changed: string[]; removed: string[] }> }) =>
  Object.fromEntries(Object.entries(reply.sections).map(([name, s]) => [name, { added: s.added, changed: s.changed, removed: s.removed }]))

describe('panel config snapshots (built daemon, HTTP)', () => {
  it('snapshot, delete a stream and a user, plan, restore: the viewer plays again with the same grant', async (t) => {
    await bc.channel('news', { title: 'News', category: ['Info'] })
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'news' })
    await playAsAlice(t, 'news')

    const taken = await keep('panel POST snapshots', panel.api('POST', '/api/config/snapshots', { note: 'before the purge' }))
    expect(taken).toMatchObject({ service: 'panel', reason: 'manual', note: 'before the purge' })
    expect(JSON.stringify(taken)).not.toMatch(/"key"|verifier/)

    await panel.api('DELETE', '/api/streams/news')
    await panel.api('DELETE', '/api/users/alice')
    const list = await keep('panel GET snapshots', panel.api('GET', '/api/config/snapshots'))
    // Newest first: one automatic snapshot before each destructive change.
    expect(list.snapshots.slice(0, 3).map((s: { reason: string }) => s.reason)).toEqual(['before-delete user alice', 'before-delete stream news', 'manual'])

    const plan = await keep('panel plan', panel.api('POST', `/api/config/snapshots/${taken.id}/plan`, {}))
    expect(plan.sections.streams.added).toEqual(['news'])
    expect(plan.sections.users.added).toEqual(['alice'])
    expect(plan.sections.publishers.skipped).toEqual([])

    const refused = await panel.call('POST', `/api/config/snapshots/${taken.id}/restore`, {})
    expect([refused.status, refused.body.error.code]).toEqual([400, 'CONFIG_CONFIRM_REQUIRED'])
    expect((await panel.api('GET', '/api/streams')).streams.map((s: { id: string }) => s.id)).not.toContain('news')

    const restored = await keep('panel restore', panel.api('POST', `/api/config/snapshots/${taken.id}/restore`, { confirm: true }))
    expect(planOf(restored)).toEqual(planOf(plan))
    expect(restored.preRestoreSnapshot).toMatch(/^\d{8}T\d{9}Z-[0-9a-f]{6}$/)
    expect((await panel.api('GET', '/api/users/alice')).grants).toEqual(['news'])
    await playAsAlice(t, 'news')

    // Nothing left to bring back: a second plan is all "left alone".
    const again = await panel.api('POST', `/api/config/snapshots/${taken.id}/plan`, {})
    for (const s of Object.values(again.sections) as Array<{ added: string[]; changed: string[] }>) expect([...s.added, ...s.changed]).toEqual([])
    // The newest CONFIG_SNAPSHOT_KEEP (6) are kept.
    for (let i = 0; i < 5; i++) await panel.api('POST', '/api/config/snapshots', { note: `fill ${i}` })
    const kept = (await panel.api('GET', '/api/config/snapshots')).snapshots
    expect(kept).toHaveLength(6)
    expect(kept[0].note).toBe('fill 4')
  })

  it('refuses a template of the other daemon (409) and traversal ids (404)', async () => {
    const template = await keep('panel template', panel.api('GET', '/api/config/template'))
    expect(template).toMatchObject({ service: 'panel', contains: 'no-secrets' })
    expect(template.omitted).toEqual(expect.arrayContaining([expect.objectContaining({ section: 'users' })]))
    const bcTemplate = await keep('broadcaster template', bc.api('GET', '/api/config/template'))
    for (const [path, extra] of [['/api/config/template/plan', {}], ['/api/config/template/import', { confirm: true }]] as const) {
      const r = await panel.call('POST', path, { template: bcTemplate, ...extra })
      expect([r.status, r.body.error.code]).toEqual([409, 'CONFIG_WRONG_SERVICE'])
      const r2 = await bc.call('POST', path, { template, ...extra })
      expect([r2.status, r2.body.error.code]).toEqual([409, 'CONFIG_WRONG_SERVICE'])
    }
    for (const id of ['..%2Fx', '%2e%2e', '%2e%2e%2f%2e%2e%2fetc%2fpasswd', '%2Fetc%2Fpasswd', '..', 'x/..%2F..%2Fprivate%2Fidentity']) {
      for (const [method, suffix] of [['GET', ''], ['POST', '/plan'], ['DELETE', '']] as const) {
        const r = await panel.call(method, `/api/config/snapshots/${id}${suffix}`, method === 'POST' ? {} : undefined)
        expect(r.status, `${method} ${id}${suffix}`).toBe(404)
      }
    }
    answers.push({ what: 'panel GET config', text: JSON.stringify(await panel.api('GET', '/api/config')) })
    answers.push({ what: 'panel GET backups', text: JSON.stringify(await panel.api('GET', '/api/backups')) })
  })
})

describe('broadcaster config snapshots (built daemon, HTTP)', () => {
  it('a deleted channel comes back running with its content key: the viewer plays it again', async (t) => {
    const feedKey = await bc.channel('sport', { title: 'Sport' })
    await panel.api('POST', '/api/users/alice/grants', { streamId: 'sport' })
    await playAsAlice(t, 'sport')
    const taken = await keep('broadcaster snapshot', bc.api('POST', '/api/config/snapshots', { note: 'running' }))

    await bc.api('POST', '/api/channels/sport/stop')
    expect(await bc.api('DELETE', '/api/channels/sport')).toEqual({ deleted: 'sport' })
    const reasons = (await bc.api('GET', '/api/config/snapshots')).snapshots.map((s: { reason: string }) => s.reason)
    expect(reasons[0]).toBe('before-delete channel sport')

    const plan = await keep('broadcaster plan', bc.api('POST', `/api/config/snapshots/${taken.id}/plan`, {}))
    expect(plan.sections.channels.added).toEqual(['sport'])
    expect(plan.sections['feed-identities'].added).toEqual([])
    const restored = await keep('broadcaster restore', bc.api('POST', `/api/config/snapshots/${taken.id}/restore`, { confirm: true }))
    expect(planOf(restored)).toEqual(planOf(plan))

    const channel = await bc.api('GET', '/api/channels/sport')
    expect(channel).toMatchObject({ title: 'Sport', desiredRunning: true })
    await waitFor(async () => (await bc.api('GET', '/api/channels/sport')).registered === true, { timeoutMs: 60_000, message: 'restored channel registered' })
    // The same content key (feed identity kept), so alice's grant unseals it: she plays again.
    expect(typeof feedKey).toBe('string')
    await playAsAlice(t, 'sport')
    answers.push({ what: 'broadcaster GET config', text: JSON.stringify(await bc.api('GET', '/api/config')) })
    answers.push({ what: 'broadcaster GET backups', text: JSON.stringify(await bc.api('GET', '/api/backups')) })
  })
})

describe('secret scan of config answers and templates', () => {
  it('finds none of the daemons\' secrets, and finds a secret planted in a template section', async () => {
    const secrets = collectSecrets({ panel: panel.dataDir, broadcaster: bc.dataDir }, [
      { kind: 'viewer password', value: 'alice-pw' },
      { kind: 'admin password', value: panel.admin.password },
      { kind: 'operator password', value: bc.operator.password },
      { kind: 'PUBLISHER_KEY', value: bc.publisher.secretKey }
    ])
    const kinds = new Set(secrets.map((s) => s.kind))
    for (const kind of ['panel signing key', 'panel OPRF key', 'stream key', 'admin verifier', 'control signing key', 'feed content key', 'user verifier, salt or sealed key (from snapshots)', 'PUBLISHER_KEY']) {
      expect(kinds, kind).toContain(kind)
    }
    answers.push({ what: 'panel template (now)', text: JSON.stringify(await panel.api('GET', '/api/config/template')) })
    answers.push({ what: 'broadcaster template (now)', text: JSON.stringify(await bc.api('GET', '/api/config/template')) })
    expect(answers.length).toBeGreaterThan(12)
    for (const a of answers) expect(findSecrets(a.text, secrets).map((s) => s.kind), a.what).toEqual([])

    // The scan can fail: a stream key planted in the streams section of a template is found.
    const template = await panel.api('GET', '/api/config/template')
    const streamKey = secrets.find((s) => s.kind === 'stream key')!.value
    const planted = { ...template, sections: { ...template.sections, streams: { ...template.sections.streams, news: { ...template.sections.streams.news, key: streamKey } } } }
    // (A broadcaster's content key is the panel's stream key of that channel: both kinds name it.)
    expect(findSecrets(JSON.stringify(planted), secrets).map((s) => s.kind)).toContain('stream key')
    expect(findSecrets(JSON.stringify(template), secrets)).toEqual([])
  })
})

describe('config commands (built daemons, CLI)', () => {
  it('panel: snapshot, delete-stream, plan, restore --confirm (the panel stopped: the CLI holds the store)', async () => {
    await panel.stop()
    const taken = await panel.cli(['config', 'snapshot', '--note', 'cli'])
    await panel.cli(['delete-stream', 'news'])
    const plan = await panel.cli(['config', 'plan', taken.id])
    expect(plan.sections.streams.added).toEqual(['news'])
    const refused = await panel.cli(['config', 'restore', taken.id]).catch((e: Error) => e)
    expect(String(refused)).toMatch(/CONFIG_CONFIRM_REQUIRED/)
    const restored = await panel.cli(['config', 'restore', taken.id, '--confirm'])
    expect(planOf(restored)).toEqual(planOf(plan))
    const list = await panel.cli(['config', 'list'])
    expect(list.snapshots.map((s: { id: string }) => s.id)).toContain(taken.id)
    await panel.start()
    expect((await panel.api('GET', '/api/users/alice')).grants).toEqual(expect.arrayContaining(['news', 'sport']))
  })

  it('broadcaster: config snapshot and plan beside the running daemon; a restore that writes is refused while it runs', async () => {
    const run = (args: string[]) => runBinJson(ARUS_BINS.broadcaster, args, { env: bc.env })
    const taken = await run(['config', 'snapshot'])
    expect(taken.service).toBe('broadcaster')
    await bc.api('POST', '/api/channels', { id: 'extra', input: 'test' })
    const plan = await run(['config', 'plan', taken.id, '--remove-extra'])
    expect(plan.sections.channels).toMatchObject({ removed: ['extra'], leftAlone: expect.arrayContaining(['news', 'sport']) })
    const refused = await run(['config', 'restore', taken.id, '--confirm', '--remove-extra']).catch((e: Error) => e)
    expect(String(refused)).toMatch(/BROADCASTER_ELOCKED/)
    expect((await bc.api('GET', '/api/channels/extra')).id).toBe('extra')
  })
})

