import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sh } from './sh.js'

// The same depth from src/ and dist/: packages/lab/<dir>/ → packages/lab/delay/.
const SOURCE = fileURLToPath(new URL('../delay/arus-delay.c', import.meta.url))

/** What the delay stage reports (see delay/README.md). */
export interface DelayStats {
  packets: number
  bytes: number
  lost: number
  queueDrops: number
  nonIpv4: number
  maxQueue: number
  lateP50Us: number
  lateP99Us: number
  lateMaxUs: number
  cpuUserMs: number
  cpuSysMs: number
}

/**
 * The delay stage's binary, compiled with gcc from delay/arus-delay.c once per source
 * version (cached under the system temp dir by the source's hash).
 */
export async function delayBinary (): Promise<string> {
  const source = readFileSync(SOURCE)
  const hash = createHash('sha256').update(source).digest('hex').slice(0, 16)
  const dir = join(tmpdir(), 'arus-lab-bin')
  const bin = join(dir, `arus-delay-${hash}`)
  if (existsSync(bin)) return bin
  mkdirSync(dir, { recursive: true })
  const tmp = `${bin}.${process.pid}.tmp`
  await sh('gcc', ['-O2', '-std=gnu11', '-Wall', '-Wextra', '-o', tmp, SOURCE, '-lm'], { timeoutMs: 60_000 })
  renameSync(tmp, bin)
  return bin
}

/** The stage's last stats file, or null before its first write. */
export function readDelayStats (file: string): DelayStats | null {
  try {
    return JSON.parse(readFileSync(file, 'utf8')) as DelayStats
  } catch {
    return null
  }
}
