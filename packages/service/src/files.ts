/**
 * Private state files: written atomically (temp file in the same directory,
 * fsync, rename, fsync the directory) with owner-only modes, read back
 * through a zod schema.
 */
import { randomBytes } from 'node:crypto'
import { chmod, mkdir, open, readFile, rename, rm } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { z } from 'zod'
import { ServiceError, osErrorCode } from './errors.js'

/** Mode of private directories. */
export const PRIVATE_DIR_MODE = 0o700
/** Default mode of files written by `writeFileAtomic`. */
export const PRIVATE_FILE_MODE = 0o600

/** Options of `writeFileAtomic` and `writeJsonAtomic`. */
export interface WriteFileInit {
  /** File mode, applied exactly (not reduced by the umask). Default 0o600. */
  mode?: number
}

/** Options of `readJsonFile`. */
export interface ReadJsonInit {
  /** What a missing file gives: `null`, or a `SERVICE_FILE_NOT_FOUND` error (default). */
  missing?: 'null' | 'throw'
}

function checkMode (mode: number): void {
  if (!Number.isInteger(mode) || mode < 0 || mode > 0o7777) throw ServiceError.invalidArgument(`invalid file mode ${String(mode)}`)
}

/** `mkdir -p` with mode 0o700, then `chmod 0o700` (an existing directory is tightened too). */
export async function ensurePrivateDir (path: string): Promise<void> {
  try {
    await mkdir(path, { recursive: true, mode: PRIVATE_DIR_MODE })
    await chmod(path, PRIVATE_DIR_MODE)
  } catch (err) {
    throw ServiceError.fileIo('create directory', path, err)
  }
}

/**
 * Replaces `path` with `data` so that readers and crashes only ever see the
 * old or the new content. Missing parent directories are created 0o700; the
 * temp file (`.<name>.<random>.tmp` beside the target) is removed on failure.
 */
export async function writeFileAtomic (path: string, data: string | Uint8Array, init: WriteFileInit = {}): Promise<void> {
  const mode = init.mode ?? PRIVATE_FILE_MODE
  checkMode(mode)
  const dir = dirname(path)
  const temp = join(dir, `.${basename(path)}.${randomBytes(6).toString('hex')}.tmp`)
  try {
    await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  } catch (err) {
    throw ServiceError.fileIo('create directory', dir, err)
  }
  try {
    const file = await open(temp, 'wx', mode)
    try {
      await file.chmod(mode)
      await file.writeFile(data)
      await file.sync()
    } finally {
      await file.close()
    }
    await rename(temp, path)
  } catch (err) {
    await rm(temp, { force: true }).catch(() => {})
    throw ServiceError.fileIo('write', path, err)
  }
  await syncDir(dir)
}

// Makes the rename durable. Some filesystems refuse fsync on a directory; the
// rename has happened by then, so those refusals are not failures of the write.
async function syncDir (dir: string): Promise<void> {
  let handle
  try {
    handle = await open(dir, 'r')
    await handle.sync()
  } catch (err) {
    const code = osErrorCode(err)
    if (code !== 'EINVAL' && code !== 'EISDIR' && code !== 'EPERM' && code !== 'ENOTSUP') throw ServiceError.fileIo('sync directory', dir, err)
  } finally {
    await handle?.close()
  }
}

/** `writeFileAtomic` of `JSON.stringify(value, null, 2)` plus a newline. */
export async function writeJsonAtomic (path: string, value: unknown, init: WriteFileInit = {}): Promise<void> {
  let text: string | undefined
  try {
    text = JSON.stringify(value, null, 2)
  } catch {
    throw ServiceError.invalidArgument(`writeJsonAtomic ${path}: value is not serializable to JSON`)
  }
  if (text === undefined) throw ServiceError.invalidArgument(`writeJsonAtomic ${path}: value is not serializable to JSON`)
  await writeFileAtomic(path, text + '\n', init)
}

/**
 * Reads a JSON file and validates it with `schema`. Invalid JSON or a schema
 * mismatch throws `SERVICE_CORRUPT_FILE` naming the path and the failing
 * fields, never the content.
 */
export async function readJsonFile<S extends z.ZodType> (path: string, schema: S, init: { missing: 'null' }): Promise<z.output<S> | null>
export async function readJsonFile<S extends z.ZodType> (path: string, schema: S, init?: ReadJsonInit): Promise<z.output<S>>
export async function readJsonFile<S extends z.ZodType> (path: string, schema: S, init: ReadJsonInit = {}): Promise<z.output<S> | null> {
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    if (osErrorCode(err) === 'ENOENT') {
      if (init.missing === 'null') return null
      throw ServiceError.fileNotFound(path)
    }
    throw ServiceError.fileIo('read', path, err)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw ServiceError.corruptFile(path, 'not valid JSON')
  }
  const result = await schema.safeParseAsync(json)
  if (!result.success) {
    // Issue paths and codes only: zod messages may quote the offending input.
    const issues = result.error.issues.map((i) => ({ path: i.path.map(String).join('.'), code: i.code }))
    const where = [...new Set(issues.map((i) => i.path === '' ? '(root)' : i.path))].slice(0, 5).join(', ')
    throw ServiceError.corruptFile(path, `does not match its schema at ${where}`, { issues })
  }
  return result.data
}
