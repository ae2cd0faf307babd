import { readFile, stat, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { describe, expect, it } from 'vitest'
import { createDaemonProgram, runCommandLine } from '@arus/service'
import { configCommands } from '@arus/config-snapshots'
import { subject, type Subject } from './helpers.js'

interface CliResult { code: number; stdout: string; stderr: string }

/** Runs one `config ...` command line in-process against `s.snapshots`; counts handle closes. */
function cliFor (s: Subject): { run: (...args: string[]) => Promise<CliResult>; closes: () => number } {
  let closes = 0
  const run = async (...args: string[]): Promise<CliResult> => {
    let stdout = ''
    let stderr = ''
    const sink = (append: (x: string) => void) => new Writable({ write (chunk, _enc, cb) { append(String(chunk)); cb() } })
    const io = { stdout: sink((x) => { stdout += x }), stderr: sink((x) => { stderr += x }), stdin: Readable.from([]), env: {} }
    const { program, cli } = createDaemonProgram({ name: 'arus-test', description: 'test', io, run: async () => { throw new Error('not here') } })
    configCommands(program, cli, async () => ({ snapshots: s.snapshots, close: async () => { closes++ } }))
    const code = await runCommandLine(() => program.parseAsync(['node', 'arus-test', ...args]), io)
    return { code, stdout, stderr }
  }
  return { run, closes: () => closes }
}

const json = (r: CliResult): any => {
  if (r.code !== 0) throw new Error(`exit ${r.code}: ${r.stderr}`)
  return JSON.parse(r.stdout)
}

describe('config commands', () => {
  it('snapshot, list, show, plan, restore, delete', async (t) => {
    const s = subject(t)
    const c = cliFor(s)
    const meta = json(await c.run('--json', 'config', 'snapshot', '--note', 'from cli'))
    expect(meta).toMatchObject({ note: 'from cli', reason: 'manual' })
    const human = await c.run('config', 'list')
    expect(human.stdout).toContain(`${meta.id}  ${meta.createdAt}  manual  from cli`)
    expect(json(await c.run('--json', 'config', 'show', meta.id))).toEqual(meta)
    expect((await c.run('config', 'show', meta.id)).stdout).toContain('streams: ')

    s.streams.live.delete('b')
    s.streams.live.set('z', { id: 'z', title: 'Z' })
    const plan = await c.run('config', 'plan', meta.id, '--remove-extra')
    expect(plan.stdout).toContain('streams: 1 added, 0 changed, 1 left alone, 1 removed, 0 skipped')
    expect(plan.stdout).toContain('skipped *: restoring the users section is not supported')

    const refused = await c.run('config', 'restore', meta.id)
    expect(refused.code).toBe(1)
    expect(refused.stderr).toMatch(/^error: \[CONFIG_CONFIRM_REQUIRED\]/)
    expect(s.streams.live.has('b')).toBe(false)
    const done = json(await c.run('--json', 'config', 'restore', meta.id, '--confirm', '--remove-extra'))
    expect(done.sections.streams).toMatchObject({ added: ['b'], removed: ['z'] })
    expect([...s.streams.live.keys()].sort()).toEqual(['a', 'b'])

    expect(json(await c.run('--json', 'config', 'delete', meta.id))).toEqual({ deleted: meta.id })
    const missing = await c.run('config', 'show', meta.id)
    expect([missing.code, missing.stderr]).toEqual([1, `error: [CONFIG_SNAPSHOT_NOT_FOUND] snapshot ${meta.id} not found\n`])
    const traversal = await c.run('config', 'show', '../../etc/passwd')
    expect(traversal.stderr).toBe('error: [CONFIG_SNAPSHOT_NOT_FOUND] snapshot not found: not a snapshot id\n')
    expect(c.closes()).toBe(10) // every command released its handle, failures included
  })

  it('template to stdout and to a file, import with --plan and --confirm', async (t) => {
    const s = subject(t)
    const c = cliFor(s)
    const printed = JSON.parse((await c.run('config', 'template')).stdout)
    expect(printed).toMatchObject({ kind: 'arus-config-template', contains: 'no-secrets' })
    const out = join(s.root, 'template.json')
    const written = await c.run('config', 'template', '--out', out)
    expect(written.stdout).toContain(`template written to ${out} (sections: streams; 2 omissions)`)
    expect((await stat(out)).mode & 0o777).toBe(0o600)
    expect(await readFile(out, 'utf8')).not.toContain('secret-a')

    s.streams.live.clear()
    const plan = json(await c.run('--json', 'config', 'import', out, '--plan'))
    expect(plan.sections.streams.added).toEqual(['a', 'b'])
    expect(s.streams.live.size).toBe(0)
    const refused = await c.run('config', 'import', out)
    expect(refused.stderr).toMatch(/^error: \[CONFIG_CONFIRM_REQUIRED\]/)
    const done = json(await c.run('--json', 'config', 'import', out, '--confirm'))
    expect(done.preRestoreSnapshot).toEqual(expect.any(String))
    expect(s.streams.live.size).toBe(2)

    await writeFile(join(s.root, 'bad.json'), '{ not json')
    expect((await c.run('config', 'import', join(s.root, 'bad.json'), '--plan')).stderr).toMatch(/^error: \[CONFIG_INVALID_TEMPLATE\]/)
    expect((await c.run('config', 'import', join(s.root, 'none.json'), '--plan')).stderr).toMatch(/^error: \[SERVICE_FILE_NOT_FOUND\]/)
  })

  it('backups, and a bad note through the same schema', async (t) => {
    const s = subject(t)
    const c = cliFor(s)
    const backups = await c.run('config', 'backups')
    expect(backups.stdout).toContain('BACKUP_DIR is not set')
    const bad = await c.run('config', 'snapshot', '--note', 'x'.repeat(300))
    expect([bad.code, bad.stderr]).toEqual([1, 'error: [CONFIG_INVALID_INPUT] invalid snapshot options: note\n'])
  })
})
