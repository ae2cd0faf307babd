import { existsSync } from 'node:fs'

/** libfaketime from Debian's `faketime` package (scripts/setup.sh installs it). */
const LIB = ['/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1', '/usr/lib/aarch64-linux-gnu/faketime/libfaketime.so.1'].find((p) => existsSync(p))

/**
 * The environment that moves one process's wall clock by `offset` (e.g. `+31d`): a real
 * reseller process living 31 days ahead, so expiry is exercised without waiting a month.
 * Monotonic time is left alone (timers behave).
 */
export function fakeClock (offset: string): Record<string, string> {
  if (LIB === undefined) throw new Error('libfaketime is missing: run scripts/setup.sh (Debian package faketime)')
  return { LD_PRELOAD: LIB, FAKETIME: offset, DONT_FAKE_MONOTONIC: '1', FAKETIME_DONT_RESET: '1' }
}
