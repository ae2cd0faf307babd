import { copyFile, mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { SNAPSHOT_FILE_VERSION } from '@arus/config-snapshots'
import { subject } from './helpers.js'

// Snapshot files written by older versions must stay readable (STYLE 7).
const FIXTURE = fileURLToPath(new URL('./fixtures/snapshot-v1.json', import.meta.url))
const ID = '20261124T101500123Z-3fa9c2'

describe('snapshot file format compatibility', () => {
  it('reads, plans and restores a v1 snapshot file', async (t) => {
    expect(SNAPSHOT_FILE_VERSION).toBe(1)
    const s = subject(t)
    await mkdir(s.dir, { recursive: true })
    await copyFile(FIXTURE, join(s.dir, `${ID}.json`))
    expect(await s.snapshots.show(ID)).toEqual({
      id: ID,
      service: 'panel',
      createdAt: '2026-11-24T10:15:00.123Z',
      note: 'fixture',
      reason: 'before-delete-stream c',
      sections: [{ name: 'streams', bytes: 81, items: 2 }, { name: 'users', bytes: 37, items: 1 }]
    })
    const plan = await s.snapshots.plan(ID)
    expect(plan.sections.streams).toMatchObject({ added: ['c'], leftAlone: ['a'] })
    await s.snapshots.restore(ID, { confirm: true })
    expect(s.streams.live.get('c')).toEqual({ id: 'c', title: 'C', key: 'secret-c' })
  })
})
