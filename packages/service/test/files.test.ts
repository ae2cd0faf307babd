import { mkdtemp, readdir, readFile, rm, stat, writeFile, mkdir, chmod } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it, onTestFinished } from 'vitest'
import { z } from 'zod'
import { ensurePrivateDir, readJsonFile, writeFileAtomic, writeJsonAtomic, isArusError } from '@arus/service'
import type { ArusError } from '@arus/service'

async function tempDir (): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'arus-service-'))
  onTestFinished(() => rm(dir, { recursive: true, force: true }))
  return dir
}

async function rejection (p: Promise<unknown>): Promise<ArusError> {
  try {
    await p
  } catch (err) {
    if (isArusError(err)) return err
    throw err
  }
  throw new Error('expected a rejection')
}

const modeOf = async (p: string): Promise<number> => (await stat(p)).mode & 0o777

const State = z.object({ version: z.literal(1), users: z.array(z.string()) })

describe('writeFileAtomic', () => {
  it('writes the content with mode 0600 and creates missing parents 0700', async () => {
    const dir = await tempDir()
    const file = join(dir, 'a', 'b', 'state.bin')
    await writeFileAtomic(file, new Uint8Array([1, 2, 3]))
    expect([...await readFile(file)]).toEqual([1, 2, 3])
    expect(await modeOf(file)).toBe(0o600)
    expect(await modeOf(join(dir, 'a'))).toBe(0o700)
    expect(await modeOf(join(dir, 'a', 'b'))).toBe(0o700)
    expect(await readdir(join(dir, 'a', 'b'))).toEqual(['state.bin'])
  })

  it('applies an explicit mode exactly and replaces existing content', async () => {
    const dir = await tempDir()
    const file = join(dir, 'pub.txt')
    await writeFileAtomic(file, 'old')
    await writeFileAtomic(file, 'new', { mode: 0o644 })
    expect(await readFile(file, 'utf8')).toBe('new')
    expect(await modeOf(file)).toBe(0o644)
    expect(await readdir(dir)).toEqual(['pub.txt'])
  })

  it('concurrent writers end with exactly one complete file and no temp files', async () => {
    const dir = await tempDir()
    const file = join(dir, 'race.json')
    const bodies = Array.from({ length: 20 }, (_, i) => JSON.stringify({ writer: i, pad: 'x'.repeat(64 * 1024 + i) }))
    await Promise.all(bodies.map((b) => writeFileAtomic(file, b)))
    const final = await readFile(file, 'utf8')
    expect(bodies).toContain(final)
    expect(await readdir(dir)).toEqual(['race.json'])
  })

  it('a failed write removes its temp file and leaves the target intact', async () => {
    const dir = await tempDir()
    const target = join(dir, 'taken')
    await mkdir(join(target, 'child'), { recursive: true })
    const err = await rejection(writeFileAtomic(target, 'data'))
    expect(err.code).toBe('SERVICE_FILE_IO')
    expect(err.message).toContain(target)
    expect(await readdir(dir)).toEqual(['taken'])
    expect(await readdir(target)).toEqual(['child'])
  })

  it('a temp file left by a crashed writer does not corrupt the target', async () => {
    const dir = await tempDir()
    const file = join(dir, 'state.json')
    await writeJsonAtomic(file, { version: 1, users: ['ann'] })
    // What a writer killed between write and rename leaves behind: a partial temp file.
    const leftover = join(dir, '.state.json.deadbeef0000.tmp')
    await writeFile(leftover, '{"version":1,"users":["ann","b', { mode: 0o600 })
    expect(await readJsonFile(file, State)).toEqual({ version: 1, users: ['ann'] })
    await writeJsonAtomic(file, { version: 1, users: ['ann', 'bob'] })
    expect(await readJsonFile(file, State)).toEqual({ version: 1, users: ['ann', 'bob'] })
    expect((await readdir(dir)).sort()).toEqual(['.state.json.deadbeef0000.tmp', 'state.json'])
  })

  it('rejects an invalid mode', async () => {
    const dir = await tempDir()
    expect((await rejection(writeFileAtomic(join(dir, 'f'), 'x', { mode: -1 }))).code).toBe('SERVICE_INVALID_ARGUMENT')
    expect(await readdir(dir)).toEqual([])
  })
})

describe('writeJsonAtomic / readJsonFile', () => {
  it('round-trips through the schema', async () => {
    const dir = await tempDir()
    const file = join(dir, 'users.json')
    await writeJsonAtomic(file, { version: 1, users: ['ann'] })
    expect(await readFile(file, 'utf8')).toBe('{\n  "version": 1,\n  "users": [\n    "ann"\n  ]\n}\n')
    expect(await modeOf(file)).toBe(0o600)
    expect(await readJsonFile(file, State)).toEqual({ version: 1, users: ['ann'] })
  })

  it('refuses values JSON cannot represent', async () => {
    const dir = await tempDir()
    expect((await rejection(writeJsonAtomic(join(dir, 'f.json'), undefined))).code).toBe('SERVICE_INVALID_ARGUMENT')
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect((await rejection(writeJsonAtomic(join(dir, 'f.json'), cyclic))).code).toBe('SERVICE_INVALID_ARGUMENT')
    expect(await readdir(dir)).toEqual([])
  })

  it('a missing file gives null or SERVICE_FILE_NOT_FOUND', async () => {
    const dir = await tempDir()
    const file = join(dir, 'nope.json')
    expect(await readJsonFile(file, State, { missing: 'null' })).toBeNull()
    const err = await rejection(readJsonFile(file, State))
    expect(err.code).toBe('SERVICE_FILE_NOT_FOUND')
    expect(err.message).toContain(file)
    expect((await rejection(readJsonFile(file, State, { missing: 'throw' }))).code).toBe('SERVICE_FILE_NOT_FOUND')
  })

  it('invalid JSON is SERVICE_CORRUPT_FILE naming the path, never the content', async () => {
    const dir = await tempDir()
    const file = join(dir, 'bad.json')
    await writeFile(file, '{"secretKey": "TOPSECRET-123", oops')
    const err = await rejection(readJsonFile(file, State, { missing: 'null' }))
    expect(err.code).toBe('SERVICE_CORRUPT_FILE')
    expect(err.message).toBe(`corrupt file ${file}: not valid JSON`)
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain('TOPSECRET')
  })

  it('a schema mismatch is SERVICE_CORRUPT_FILE naming the fields, never the content', async () => {
    const dir = await tempDir()
    const file = join(dir, 'wrong.json')
    await writeFile(file, JSON.stringify({ version: 2, users: ['ok', 'TOPSECRET-456', 7] }))
    const err = await rejection(readJsonFile(file, State))
    expect(err.code).toBe('SERVICE_CORRUPT_FILE')
    expect(err.message).toBe(`corrupt file ${file}: does not match its schema at version, users.2`)
    expect(err.details).toMatchObject({ path: file, issues: [{ path: 'version' }, { path: 'users.2' }] })
    expect(JSON.stringify({ m: err.message, d: err.details })).not.toContain('TOPSECRET')
  })

  it('an unreadable path is SERVICE_FILE_IO', async () => {
    const dir = await tempDir()
    expect((await rejection(readJsonFile(dir, State))).code).toBe('SERVICE_FILE_IO')
  })
})

describe('ensurePrivateDir', () => {
  it('creates nested directories 0700 and tightens an existing one', async () => {
    const dir = await tempDir()
    const nested = join(dir, 'x', 'y')
    await ensurePrivateDir(nested)
    expect(await modeOf(nested)).toBe(0o700)
    const loose = join(dir, 'loose')
    await mkdir(loose, { mode: 0o755 })
    await chmod(loose, 0o755)
    await ensurePrivateDir(loose)
    expect(await modeOf(loose)).toBe(0o700)
  })

  it('fails with SERVICE_FILE_IO when a file is in the way', async () => {
    const dir = await tempDir()
    await writeFile(join(dir, 'f'), 'x')
    expect((await rejection(ensurePrivateDir(join(dir, 'f', 'sub')))).code).toBe('SERVICE_FILE_IO')
  })
})
