import { setFlagsFromString } from 'node:v8'

/**
 * The V8 flag a daemon's `run` sets before it starts (docs/architecture.md "Edit propagation"):
 * every function is compiled to baseline (Sparkplug) machine code the first time it runs,
 * instead of being interpreted until it has run often enough to tier up.
 *
 * A daemon's rare paths are the ones an operator waits on: an admin edit every few minutes
 * runs the route, the catalog update, the append and the replication's answer mostly in the
 * interpreter, and an edit in a freshly started panel took about 2 ms longer than the same edit
 * once warm. Baseline code also keeps a function's bytecode from being flushed while idle
 * (V8 does not flush baseline code by default), so the path stays compiled between edits.
 * The cost is the baseline code of every function that ever ran (the panel after a login and
 * twenty edits: about 6 MiB more resident, 150-156 → 158-161 MiB) and a little compile time.
 */
export const DAEMON_V8_FLAGS = ['--always-sparkplug'] as const

/**
 * Sets {@link DAEMON_V8_FLAGS} for this process. Only code compiled afterwards is affected,
 * which in a daemon is nearly all of it (V8 compiles a function when it first runs).
 */
export function applyDaemonV8Flags (): void {
  for (const flag of DAEMON_V8_FLAGS) setFlagsFromString(flag)
}
