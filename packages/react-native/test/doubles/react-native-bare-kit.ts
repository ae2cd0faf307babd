// Test double of react-native-bare-kit: records that it was loaded (the lazy-load rule), and
// makes its Worklet with the factory a test installs.
import type { WorkletLike } from '../../src/backend.js'

const g = globalThis as { __arusBareKitLoads?: number; __arusWorkletFactory?: () => WorkletLike }
g.__arusBareKitLoads = (g.__arusBareKitLoads ?? 0) + 1

export class Worklet implements WorkletLike {
  private readonly inner: WorkletLike
  constructor () {
    if (g.__arusWorkletFactory === undefined) throw new Error('no worklet factory installed')
    this.inner = g.__arusWorkletFactory()
  }

  get IPC () { return this.inner.IPC }
  start (filename: string, source: Uint8Array, args?: string[]) { this.inner.start(filename, source, args) }
  terminate () { this.inner.terminate() }
}
