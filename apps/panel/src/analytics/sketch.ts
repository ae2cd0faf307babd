import { z } from 'zod'
import { HLL_PRECISION } from './constants.js'

/**
 * The day's distinct-viewer counter over salted viewer hashes (16 hex characters each, see
 * viewers.ts): an exact set up to a cap, then a HyperLogLog. Only hashes ever enter it.
 */

/** On-disk form: the set written sorted (arrival order is not kept), or the registers in base64. */
export const SketchState = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('exact'), hashes: z.array(z.string().regex(/^[0-9a-f]{16}$/)) }),
  z.object({ kind: z.literal('hll'), precision: z.literal(HLL_PRECISION), registers: z.string().max(64 * 1024) })
])
export type SketchState = z.infer<typeof SketchState>

const M = 1 << HLL_PRECISION
const REST_BITS = BigInt(64 - HLL_PRECISION)
const REST_MASK = (1n << REST_BITS) - 1n

export class ViewerSketch {
  private exact: Set<string> | null = new Set()
  private registers: Uint8Array | null = null

  constructor (private readonly cap: number, state?: SketchState) {
    if (state?.kind === 'exact') for (const h of state.hashes) this.add(h)
    if (state?.kind === 'hll') {
      const bytes = Buffer.from(state.registers, 'base64')
      if (bytes.length !== M) throw new RangeError('hll registers have the wrong size')
      this.exact = null
      this.registers = new Uint8Array(bytes)
    }
  }

  /** Whether the count is exact (the set has not turned into a HyperLogLog). */
  get isExact (): boolean { return this.exact !== null }

  /** Adds one 64-bit hash (hex); true when the sketch changed. */
  add (hash: string): boolean {
    if (this.exact !== null) {
      if (this.exact.has(hash)) return false
      this.exact.add(hash)
      if (this.exact.size > this.cap) this.toHll()
      return true
    }
    return this.addToRegisters(hash)
  }

  /** Distinct viewers: exact below the cap, the HyperLogLog estimate above it. */
  count (): number {
    if (this.exact !== null) return this.exact.size
    const registers = this.registers!
    let sum = 0
    let zeros = 0
    for (const r of registers) { sum += 2 ** -r; if (r === 0) zeros++ }
    const alpha = 0.7213 / (1 + 1.079 / M)
    const estimate = alpha * M * M / sum
    // Small-range correction (linear counting) while many registers are still empty.
    return Math.round(estimate <= 2.5 * M && zeros > 0 ? M * Math.log(M / zeros) : estimate)
  }

  toJSON (): SketchState {
    if (this.exact !== null) return { kind: 'exact', hashes: [...this.exact].sort() }
    return { kind: 'hll', precision: HLL_PRECISION, registers: Buffer.from(this.registers!).toString('base64') }
  }

  private toHll (): void {
    this.registers = new Uint8Array(M)
    for (const h of this.exact!) this.addToRegisters(h)
    this.exact = null
  }

  private addToRegisters (hash: string): boolean {
    const x = BigInt(`0x${hash}`)
    const index = Number(x >> REST_BITS)
    const rest = x & REST_MASK
    // Rank: position of the first 1 bit in the remaining bits (all zero: one past the end).
    const rank = rest === 0n ? Number(REST_BITS) + 1 : Number(REST_BITS) - rest.toString(2).length + 1
    if (rank <= this.registers![index]!) return false
    this.registers![index] = rank
    return true
  }
}
