import { mkdir, symlink, utimes, writeFile, readdir } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { BACKUP_FRESH_HOURS, BACKUP_STALE_HOURS } from '@arus/config-snapshots'
import { tmpDir } from '@arus/testkit'
import { subject } from './helpers.js'

const HOUR = 3_600_000

describe('backups index', () => {
  it('lists archives newest first with age and freshness, skipping other files, dirs and symlinks', async (t) => {
    const backupDir = join(tmpDir(t), 'backups')
    await mkdir(backupDir)
    const s = subject(t, { backupDir })
    const now = s.clock.now
    const files: Array<[string, number]> = [
      ['panel-3.tar.gz', 2], ['panel-2.tar.zst', 30], ['panel-1.tgz', 100], ['panel-0.tar', BACKUP_FRESH_HOURS + 0.01]
    ]
    for (const [name, ageH] of files) {
      await writeFile(join(backupDir, name), 'x'.repeat(10))
      const at = new Date(now - ageH * HOUR)
      await utimes(join(backupDir, name), at, at)
    }
    await writeFile(join(backupDir, 'notes.txt'), 'not an archive')
    await writeFile(join(backupDir, '.partial.tar.gz'), 'in progress')
    await mkdir(join(backupDir, 'dir.tar'))
    const outside = join(tmpDir(t), 'outside.tar.gz')
    await writeFile(outside, 'outside')
    await symlink(outside, join(backupDir, 'link.tar.gz'))
    const before = (await readdir(backupDir)).sort()

    const b = await s.snapshots.backups()
    expect(b.available).toBe(true)
    expect(b.dir).toBe(backupDir)
    expect(b.canRunHere).toBe(false)
    expect(b.archives.map((a) => [a.name, a.ageHours, a.freshness, a.newest])).toEqual([
      ['panel-3.tar.gz', 2, 'fresh', true],
      ['panel-0.tar', 26, 'stale', false], // just past the fresh threshold
      ['panel-2.tar.zst', 30, 'stale', false],
      ['panel-1.tgz', 100, 'old', false]
    ])
    expect(b.archives[0]!.bytes).toBe(10)
    expect(Math.abs(Date.parse(b.archives[0]!.modifiedAt) - (now - 2 * HOUR))).toBeLessThan(2) // filesystems may truncate to the ms
    expect(b.commands.some((c) => c.includes(`tar -z -xf '${join(backupDir, 'panel-3.tar.gz')}'`))).toBe(true)
    expect(b.note).toContain(`fresh up to ${BACKUP_FRESH_HOURS} h`)
    expect(b.note).toContain(`stale up to ${BACKUP_STALE_HOURS} h`)
    expect((await readdir(backupDir)).sort()).toEqual(before) // read-only
  })

  it('answers available: false for a missing directory or none configured', async (t) => {
    const missing = join(tmpDir(t), 'nope')
    expect(await subject(t, { backupDir: missing }).snapshots.backups()).toMatchObject({ available: false, dir: missing, archives: [], canRunHere: false })
    const none = await subject(t).snapshots.backups()
    expect(none).toMatchObject({ available: false, archives: [], commands: [], canRunHere: false })
    expect(none.dir).toBeUndefined()
    expect(none.note).toContain('BACKUP_DIR is not set')
  })

  it('quotes paths in the suggested commands', async (t) => {
    const backupDir = join(tmpDir(t), "it's here")
    await mkdir(backupDir)
    await writeFile(join(backupDir, 'a.tar'), 'x')
    const b = await subject(t, { backupDir }).snapshots.backups()
    expect(b.commands[0]).toBe(`ls -lt '${backupDir.replace("'", "'\\''")}'`)
  })
})
