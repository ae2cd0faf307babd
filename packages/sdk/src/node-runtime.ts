import fs from 'node:fs/promises'
import http from 'node:http'
import type { FsModule, HttpModule, PlayerRuntime } from './runtime.js'

/**
 * The default host runtime: Node's `http` and `fs/promises` (spec 3 point 6: "the default
 * factory wires in the host runtime's modules"). The only file of the engine that imports
 * Node built-ins.
 */
export function nodeRuntime (): PlayerRuntime {
  return { http: http as unknown as HttpModule, fs: fs as unknown as FsModule }
}
