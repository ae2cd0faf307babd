import { readdir } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { fakeStreams, subject } from './helpers.js'

describe('plan and restore', () => {
  it('plan makes no writes and equals the restore result', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    // drift after the snapshot: a renamed, b deleted, c added
    s.streams.live.get('a')!.title = 'A renamed'
    s.streams.live.delete('b')
    s.streams.live.set('c', { id: 'c', title: 'C', key: 'secret-c' })
    const files = await readdir(s.dir)

    const plan = await s.snapshots.plan(snap.id)
    expect(s.streams.writes).toBe(0)
    expect(await readdir(s.dir)).toEqual(files)
    expect(plan).toEqual({
      id: snap.id,
      sections: {
        streams: { added: ['b'], changed: ['a'], leftAlone: [], removed: [], skipped: [], warnings: [] },
        users: { added: [], changed: [], leftAlone: [], removed: [], skipped: [{ id: '*', reason: 'restoring the users section is not supported' }], warnings: [] }
      },
      warnings: []
    })

    const done = await s.snapshots.restore(snap.id, { confirm: true })
    expect(done.sections).toEqual(plan.sections)
    expect(done.warnings).toEqual(plan.warnings)
    expect(s.streams.writes).toBe(2)
    expect([...s.streams.live.values()]).toEqual([
      { id: 'a', title: 'A', key: 'secret-a' }, { id: 'c', title: 'C', key: 'secret-c' }, { id: 'b', title: 'B', key: 'secret-b' }
    ])
    // additive by default: c stays
    expect(s.streams.live.has('c')).toBe(true)
  })

  it('takes a before-restore snapshot first and audits the restore', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    s.clock.now += 1000
    s.streams.live.delete('b')
    const done = await s.snapshots.restore(snap.id, { confirm: true })
    const pre = await s.snapshots.show(done.preRestoreSnapshot)
    expect(pre.reason).toBe('before-restore')
    expect(pre.sections.find((x) => x.name === 'streams')!.items).toBe(1) // the state before the restore
    expect(s.records().some((r) => r.event === 'config.restore' && r.snapshot === snap.id)).toBe(true)
  })

  it('refuses a restore without confirm: true (400), writing nothing', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    s.streams.live.delete('b')
    for (const opts of [{}, { confirm: false }, { removeExtra: true }]) {
      await expect(s.snapshots.restore(snap.id, opts)).rejects.toMatchObject({ code: 'CONFIG_CONFIRM_REQUIRED', status: 400 })
    }
    expect(s.streams.writes).toBe(0)
    expect((await s.snapshots.list()).snapshots).toHaveLength(1)
  })

  it('removeExtra removes what the snapshot lacks; plan shows it first', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    s.streams.live.set('c', { id: 'c', title: 'C' })
    const plan = await s.snapshots.plan(snap.id, { removeExtra: true })
    expect(plan.sections.streams).toMatchObject({ removed: ['c'], leftAlone: ['a', 'b'] })
    expect(s.streams.live.has('c')).toBe(true)
    const done = await s.snapshots.restore(snap.id, { confirm: true, removeExtra: true })
    expect(done.sections).toEqual(plan.sections)
    expect([...s.streams.live.keys()]).toEqual(['a', 'b'])
  })

  it('destructive snapshots requested during a restore are covered by the pre-restore snapshot', async (t) => {
    const s = subject(t, { keep: 2 })
    const snap = await s.snapshots.take()
    for (const id of ['c', 'd', 'e']) s.streams.live.set(id, { id, title: id })
    const covered: string[] = []
    s.streams.onRemove = async (id) => { covered.push((await s.snapshots.beforeDestructive(`delete-stream ${id}`)).id) }
    const done = await s.snapshots.restore(snap.id, { confirm: true, removeExtra: true })
    expect(covered).toEqual([done.preRestoreSnapshot, done.preRestoreSnapshot, done.preRestoreSnapshot])
    // outside a restore, a destructive change takes its own snapshot
    const own = await s.snapshots.beforeDestructive('delete-stream a')
    expect(own.id).not.toBe(done.preRestoreSnapshot)
    expect(own.reason).toBe('before-delete-stream a')
  })

  it('an export-only service refuses plan, restore and template import with 409', async (t) => {
    const s = subject(t, { service: 'reseller', restoreSupported: false })
    const snap = await s.snapshots.take()
    const template = await s.snapshots.template()
    for (const op of [
      () => s.snapshots.plan(snap.id), () => s.snapshots.restore(snap.id, { confirm: true }),
      () => s.snapshots.planTemplate(template), () => s.snapshots.importTemplate(template, { confirm: true })
    ]) await expect(op()).rejects.toMatchObject({ code: 'CONFIG_RESTORE_UNSUPPORTED', status: 409 })
    expect(s.snapshots.info()).toMatchObject({ restoreSupported: false, sections: [{ name: 'streams', restoreSupported: false }, { name: 'users', restoreSupported: false }] })
    expect(s.streams.writes).toBe(0)
  })

  it('warns about sections it does not know and sections the snapshot lacks', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    const plan = await subject(t, { dir: s.dir, sections: [{ ...fakeStreams().section, name: 'sources' }] }).snapshots.plan(snap.id)
    expect(plan.warnings).toEqual([
      'section streams of the snapshot is unknown to this panel: ignored',
      'section users of the snapshot is unknown to this panel: ignored',
      'section sources is not in this snapshot: left as it is'
    ])
  })

  it('refuses a snapshot of another service (409)', async (t) => {
    const s = subject(t)
    const snap = await s.snapshots.take()
    const broadcaster = subject(t, { service: 'broadcaster', dir: s.dir })
    await expect(broadcaster.snapshots.plan(snap.id)).rejects.toMatchObject({ code: 'CONFIG_WRONG_SERVICE', status: 409 })
  })

  it('refuses a malformed plan from a section', async (t) => {
    const s = subject(t, { sections: [fakeStreams([], { apply: async () => ({ added: 'x' }) as never }).section] })
    const snap = await s.snapshots.take()
    await expect(s.snapshots.plan(snap.id)).rejects.toMatchObject({ code: 'CONFIG_SECTION_INVALID' })
  })
})
