import { describe, expect, it } from 'vitest'
import { SNAPSHOT_ONLY_REASON } from '@arus/config-snapshots'
import { subject } from './helpers.js'

describe('templates', () => {
  it('holds no secrets: snapshot-only sections and stripped fields are listed in omitted', async (t) => {
    const s = subject(t)
    const template = await s.snapshots.template()
    expect(template).toEqual({
      kind: 'arus-config-template',
      version: 1,
      service: 'panel',
      createdAt: '2026-11-24T10:15:00.123Z',
      contains: 'no-secrets',
      omitted: [
        { section: 'streams', path: '[*].key', reason: 'secret: per-stream key' },
        { section: 'users', path: '*', reason: SNAPSHOT_ONLY_REASON }
      ],
      sections: { streams: [{ id: 'a', title: 'A' }, { id: 'b', title: 'B' }] }
    })
    expect(JSON.stringify(template)).not.toContain('secret-a')
    expect(SNAPSHOT_ONLY_REASON).toBe('snapshot-only: holds entitlements or secrets')
  })

  it('plans and imports a template into another daemon of the same service (new keys, no entitlements)', async (t) => {
    const template = await subject(t).snapshots.template()
    const target = subject(t)
    target.streams.live.clear()
    const plan = await target.snapshots.planTemplate(template)
    expect(target.streams.writes).toBe(0)
    expect(plan).toEqual({ service: 'panel', sections: { streams: { added: ['a', 'b'], changed: [], leftAlone: [], removed: [], skipped: [], warnings: [] } }, warnings: [] })
    await expect(target.snapshots.importTemplate(template, {})).rejects.toMatchObject({ code: 'CONFIG_CONFIRM_REQUIRED', status: 400 })
    expect(target.streams.writes).toBe(0)
    const done = await target.snapshots.importTemplate(template, { confirm: true })
    expect(done.sections).toEqual(plan.sections)
    expect((await target.snapshots.show(done.preRestoreSnapshot)).reason).toBe('before-import')
    expect(target.streams.live.get('a')).toEqual({ id: 'a', title: 'A', key: 'new-key-a' })
  })

  it('refuses a template of another service with 409 on plan and import', async (t) => {
    const template = await subject(t, { service: 'broadcaster' }).snapshots.template()
    const panel = subject(t)
    await expect(panel.snapshots.planTemplate(template)).rejects.toMatchObject({ code: 'CONFIG_WRONG_SERVICE', status: 409 })
    await expect(panel.snapshots.importTemplate(template, { confirm: true })).rejects.toMatchObject({ code: 'CONFIG_WRONG_SERVICE', status: 409 })
    expect(panel.streams.writes).toBe(0)
  })

  it('refuses a malformed template with 400 naming fields, never values', async (t) => {
    const s = subject(t)
    const good = await s.snapshots.template()
    const cases: Array<[unknown, string]> = [
      [null, '(root)'],
      ['hunter2', '(root)'],
      [{ ...good, kind: 'hunter2' }, 'kind'],
      [{ ...good, contains: 'secrets hunter2' }, 'contains'],
      [{ ...good, version: 2 }, 'version'],
      [{ ...good, sections: { streams: [{ id: 'a', title: 7, key: 'hunter2' }, { id: 'hunter2' }] } }, 'sections.streams.0.title']
    ]
    for (const [template, field] of cases) {
      const err = await s.snapshots.planTemplate(template).then(() => null, (e: Error & { code: string }) => e)
      expect(err, field).toMatchObject({ code: 'CONFIG_INVALID_TEMPLATE', status: 400 })
      expect(err!.message).toContain(field)
      expect(err!.message).not.toContain('hunter2')
    }
  })

  it('warns about unknown and snapshot-only sections in a template', async (t) => {
    const s = subject(t)
    const template = { ...(await s.snapshots.template()), sections: { streams: [], users: [{ name: 'x', grants: [] }], gadgets: {}, 'Bad Name!': 1 } }
    const plan = await s.snapshots.planTemplate(template)
    expect(plan.warnings).toEqual([
      'section users is snapshot-only and never imported from a template: ignored',
      'unknown section gadgets ignored',
      'unknown section (malformed name) ignored'
    ])
    expect(Object.keys(plan.sections)).toEqual(['streams'])
  })
})
