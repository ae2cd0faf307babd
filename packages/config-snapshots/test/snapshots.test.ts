import { readdir, readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createConfigSnapshots, isSnapshotId, SNAPSHOT_ID_PATTERN } from '@arus/config-snapshots'
import { captureLog, fakeStreams, subject } from './helpers.js'

describe('take, list, show, delete', () => {
  it('takes a snapshot with metadata, lists and shows it without contents, deletes it', async (t) => {
    const s = subject(t)
    const meta = await s.snapshots.take({ note: 'before upgrade' })
    expect(meta).toEqual({
      id: expect.stringMatching(SNAPSHOT_ID_PATTERN),
      service: 'panel',
      createdAt: '2026-11-24T10:15:00.123Z',
      note: 'before upgrade',
      reason: 'manual',
      sections: [{ name: 'streams', bytes: expect.any(Number), items: 2 }, { name: 'users', bytes: expect.any(Number), items: 1 }]
    })
    expect(meta.id.startsWith('20261124T101500123Z-')).toBe(true)
    expect(await s.snapshots.list()).toEqual({ snapshots: [meta] })
    expect(await s.snapshots.show(meta.id)).toEqual(meta)
    expect(JSON.stringify(await s.snapshots.list())).not.toContain('secret-a')
    // the file holds everything, secrets included
    const file = JSON.parse(await readFile(join(s.dir, `${meta.id}.json`), 'utf8'))
    expect(file).toMatchObject({ kind: 'arus-config-snapshot', v: 1, id: meta.id, reason: 'manual', sections: { streams: [{ id: 'a', key: 'secret-a' }, { id: 'b' }] } })
    expect(await s.snapshots.remove(meta.id)).toEqual({ deleted: meta.id })
    expect(await s.snapshots.list()).toEqual({ snapshots: [] })
    await expect(s.snapshots.show(meta.id)).rejects.toMatchObject({ code: 'CONFIG_SNAPSHOT_NOT_FOUND', status: 404 })
    await expect(s.snapshots.remove(meta.id)).rejects.toMatchObject({ code: 'CONFIG_SNAPSHOT_NOT_FOUND' })
  })

  it('lists newest first and audits takes and deletes to the activity sink', async (t) => {
    const s = subject(t)
    const first = await s.snapshots.take()
    s.clock.now += 60_000
    const second = await s.snapshots.beforeDestructive('delete-user alice')
    expect(second.reason).toBe('before-delete-user alice')
    expect((await s.snapshots.list()).snapshots.map((m) => m.id)).toEqual([second.id, first.id])
    await s.snapshots.remove(first.id)
    const events = s.records().filter((r) => typeof r.event === 'string').map((r) => [r.event, r.snapshot])
    expect(events).toEqual([['config.snapshot', first.id], ['config.snapshot', second.id], ['config.snapshot-deleted', first.id]])
  })

  it('answers an empty list before the first take, without creating the directory', async (t) => {
    const s = subject(t)
    expect(await s.snapshots.list()).toEqual({ snapshots: [] })
    await expect(stat(s.dir)).rejects.toMatchObject({ code: 'ENOENT' })
  })

  it('refuses a bad note with CONFIG_INVALID_INPUT naming the field', async (t) => {
    const s = subject(t)
    await expect(s.snapshots.take({ note: 'x'.repeat(201) })).rejects.toMatchObject({ code: 'CONFIG_INVALID_INPUT', status: 400, details: { fields: ['note'] } })
    await expect(s.snapshots.take({ note: 'a\u0000b' })).rejects.toMatchObject({ code: 'CONFIG_INVALID_INPUT' })
  })

  it('cleans control characters out of a destructive reason', async (t) => {
    const s = subject(t)
    expect((await s.snapshots.beforeDestructive('delete\nstream x')).reason).toBe('before-delete stream x')
  })
})

describe('keep, modes, atomic writes, ids', () => {
  it('keeps the newest `keep` snapshots (keep 3, take 5)', async (t) => {
    const s = subject(t, { keep: 3 })
    const ids: string[] = []
    for (let i = 0; i < 5; i++) { ids.push((await s.snapshots.take({ note: `n${i}` })).id); s.clock.now += 1000 }
    expect((await s.snapshots.list()).snapshots.map((m) => m.note)).toEqual(['n4', 'n3', 'n2'])
    expect((await readdir(s.dir)).sort()).toEqual(ids.slice(2).map((id) => `${id}.json`).sort())
  })

  it('creates the directory 0700 and files 0600, and leaves no temp file behind', async (t) => {
    const s = subject(t)
    const meta = await s.snapshots.take()
    expect((await stat(s.dir)).mode & 0o777).toBe(0o700)
    expect((await stat(join(s.dir, `${meta.id}.json`))).mode & 0o777).toBe(0o600)
    expect(await readdir(s.dir)).toEqual([`${meta.id}.json`])
  })

  it('serializes concurrent takes: distinct, increasing ids under a frozen clock, and pruning stays exact', async (t) => {
    const s = subject(t, { keep: 4 })
    const metas = await Promise.all(Array.from({ length: 10 }, (_, i) => s.snapshots.take({ note: `c${i}` })))
    const ids = metas.map((m) => m.id)
    expect(new Set(ids).size).toBe(10)
    expect([...ids].sort()).toEqual(ids) // call order = id order
    expect((await s.snapshots.list()).snapshots.map((m) => m.id)).toEqual(ids.slice(6).reverse())
    expect((await readdir(s.dir)).length).toBe(4)
  })

  it('keeps ids increasing when the clock steps back', async (t) => {
    const s = subject(t)
    const a = await s.snapshots.take()
    s.clock.now -= 3_600_000
    const b = await s.snapshots.take()
    expect(b.id > a.id).toBe(true)
    expect((await s.snapshots.list()).snapshots[0]!.id).toBe(b.id)
  })

  it('generates ids of the documented form', () => {
    expect(isSnapshotId('20261124T101500123Z-3fa9c2')).toBe(true)
    for (const bad of ['../x', '20261124T101500123Z-3fa9c2.json', '20261124T101500123Z-3FA9C2', '', '/etc/passwd']) expect(isSnapshotId(bad)).toBe(false)
  })
})

describe('ids from outside', () => {
  it('refuses traversal and malformed ids with 404 before reading anything', async (t) => {
    const s = subject(t)
    await s.snapshots.take()
    // a well-formed snapshot file outside the snapshot dir, where a traversal would land
    const outside = await readFile(join(s.dir, (await readdir(s.dir))[0]!), 'utf8')
    await writeFile(join(s.root, 'data', 'x.json'), outside)
    for (const id of ['../x', '..', '%2e%2e', '..%2f..%2fetc', '../../etc/passwd', '/etc/passwd', join(s.root, 'data', 'x'), '20261124T101500123Z-3fa9c2/../../x']) {
      for (const op of [() => s.snapshots.show(id), () => s.snapshots.plan(id), () => s.snapshots.remove(id), () => s.snapshots.restore(id, { confirm: true })]) {
        const err = await op().then(() => null, (e: unknown) => e)
        expect(err, id).toMatchObject({ code: 'CONFIG_SNAPSHOT_NOT_FOUND', status: 404, message: 'snapshot not found: not a snapshot id' })
      }
    }
    expect(await readFile(join(s.root, 'data', 'x.json'), 'utf8')).toBe(outside)
  })

  it('does not follow a symlink named like a snapshot', async (t) => {
    const s = subject(t)
    const meta = await s.snapshots.take()
    const { symlink } = await import('node:fs/promises')
    const fake = '20990101T000000000Z-abcdef'
    await writeFile(join(s.root, 'outside.json'), (await readFile(join(s.dir, `${meta.id}.json`), 'utf8')).replace(meta.id, fake))
    await symlink(join(s.root, 'outside.json'), join(s.dir, `${fake}.json`))
    await expect(s.snapshots.show(fake)).rejects.toMatchObject({ code: 'CONFIG_SNAPSHOT_NOT_FOUND' })
    expect((await s.snapshots.list()).snapshots.map((m) => m.id)).toEqual([meta.id])
  })
})

describe('corrupt files', () => {
  it('answers CONFIG_SNAPSHOT_CORRUPT naming fields, never content; list leaves it out with a warning', async (t) => {
    const s = subject(t)
    const good = await s.snapshots.take()
    const bad = '20261124T101500124Z-000001'
    await writeFile(join(s.dir, `${bad}.json`), JSON.stringify({ kind: 'arus-config-snapshot', v: 1, id: bad, service: 'panel', createdAt: 'hunter2-not-a-date', reason: 'manual', sections: {} }))
    const notJson = '20261124T101500125Z-000002'
    await writeFile(join(s.dir, `${notJson}.json`), '{"password": "hunter2"')
    for (const id of [bad, notJson]) {
      const err = await s.snapshots.show(id).then(() => null, (e: Error & { code: string; status: number }) => e)
      expect(err).toMatchObject({ code: 'CONFIG_SNAPSHOT_CORRUPT', status: 500 })
      expect(err!.message).not.toContain('hunter2')
    }
    await expect(s.snapshots.show(bad)).rejects.toThrow(/createdAt/)
    expect((await s.snapshots.list()).snapshots.map((m) => m.id)).toEqual([good.id])
    expect(s.records().filter((r) => r.msg === 'corrupt config snapshot left out of the list').map((r) => r.snapshot).sort()).toEqual([bad, notJson])
    expect(await s.snapshots.remove(bad)).toEqual({ deleted: bad })
  })

  it('refuses to plan a snapshot whose section fails its schema, naming the field', async (t) => {
    const s = subject(t)
    const meta = await s.snapshots.take()
    const path = join(s.dir, `${meta.id}.json`)
    const file = JSON.parse(await readFile(path, 'utf8'))
    file.sections.streams[0].title = 42
    await writeFile(path, JSON.stringify(file))
    const err = await s.snapshots.plan(meta.id).then(() => null, (e: Error & { code: string }) => e)
    expect(err).toMatchObject({ code: 'CONFIG_SNAPSHOT_CORRUPT' })
    expect(err!.message).toContain('sections.streams.0.title')
  })

  it('refuses a file whose id does not match its name', async (t) => {
    const s = subject(t)
    const meta = await s.snapshots.take()
    const other = '20261124T101500999Z-aaaaaa'
    await writeFile(join(s.dir, `${other}.json`), await readFile(join(s.dir, `${meta.id}.json`)))
    await expect(s.snapshots.show(other)).rejects.toMatchObject({ code: 'CONFIG_SNAPSHOT_CORRUPT' })
  })
})

describe('sections and options', () => {
  it('refuses an export that fails its own schema (no file written)', async (t) => {
    const s = subject(t, { sections: [fakeStreams([], { export: async () => [{ id: 1 }] as never }).section] })
    await expect(s.snapshots.take()).rejects.toMatchObject({ code: 'CONFIG_SECTION_INVALID', status: 500 })
    expect(await s.snapshots.list()).toEqual({ snapshots: [] })
  })

  it('checks its options', () => {
    const { log } = captureLog()
    const base = { service: 'panel', dir: '/tmp/x', keep: 3, log }
    const streams = fakeStreams().section
    const bad = [
      { ...base, keep: 0, sections: [] },
      { ...base, service: 'Panel!', sections: [] },
      { ...base, sections: [streams, streams] },
      { ...base, sections: [{ ...streams, name: 'Bad Name' }] },
      { ...base, sections: [{ ...streams, toTemplate: undefined }] }
    ]
    for (const init of bad) expect(() => createConfigSnapshots(init)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID_ARGUMENT' }))
  })

  it('describes itself', async (t) => {
    const s = subject(t)
    const info = s.snapshots.info()
    expect(info).toMatchObject({
      service: 'panel',
      restoreSupported: true,
      snapshotDir: s.dir,
      keep: 20,
      sections: [{ name: 'streams', snapshotOnly: false, restoreSupported: true }, { name: 'users', snapshotOnly: true, restoreSupported: false }]
    })
    expect(info.notes).toContain('streams: streams and their metadata; a live per-stream key is never overwritten')
  })
})
