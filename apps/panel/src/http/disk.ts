import { lstat, readdir, statfs } from 'node:fs/promises'
import { join } from 'node:path'

/**
 * Disk figures for GET /api/observability: bytes used under DATA_DIR (allocated blocks, like
 * `du`) and free/total bytes of its file system. The walk is bounded and cached briefly so
 * a dashboard refreshing every few seconds does not re-walk a large store each time.
 */

const MAX_ENTRIES = 200_000
const CACHE_MS = 10_000

async function du (dir: string): Promise<number> {
  let bytes = 0
  let seen = 0
  const stack = [dir]
  while (stack.length > 0 && seen < MAX_ENTRIES) {
    const current = stack.pop()!
    let entries
    try { entries = await readdir(current, { withFileTypes: true }) } catch { continue }
    for (const e of entries) {
      if (++seen > MAX_ENTRIES) break
      const path = join(current, e.name)
      if (e.isDirectory()) { stack.push(path); continue }
      try { bytes += (await lstat(path)).blocks * 512 } catch { /* vanished meanwhile */ }
    }
  }
  return bytes
}

export interface DiskFigures { dataSize: number; diskFree: number | null; diskTotal: number | null }

export function createDiskProbe (dataDir: string, now: () => number = Date.now): () => Promise<DiskFigures> {
  let cached: { at: number; value: Promise<DiskFigures> } | null = null
  const measure = async (): Promise<DiskFigures> => {
    const dataSize = await du(dataDir)
    try {
      const fs = await statfs(dataDir)
      return { dataSize, diskFree: fs.bavail * fs.bsize, diskTotal: fs.blocks * fs.bsize }
    } catch {
      return { dataSize, diskFree: null, diskTotal: null }
    }
  }
  return () => {
    if (cached === null || now() - cached.at >= CACHE_MS) cached = { at: now(), value: measure() }
    return cached.value
  }
}
