import type Hyperbee from 'hyperbee'
import type Hypercore from 'hypercore'

// Hyperbee 2 internals (pinned through hyperdrive 13.3.4): a tree node lives inside a
// block (`block.seq`), names its keys by the seq of the block holding each key/value, and
// its children by the seq of the block holding their node. Read only here.
interface TreeNode {
  block: { seq: number }
  keys: Array<{ seq: number }>
  children: unknown[]
  getChildNode(index: number): Promise<TreeNode>
}

/**
 * Adds to `out` the seq of every block the bee's tree at `version` references (root,
 * inner nodes, key blocks). Reads local blocks only (`wait: false`): on the writer every
 * reachable block is local, and nothing may be fetched back from peers.
 */
async function addReachable (bee: Hyperbee, version: number, out: Set<number>): Promise<void> {
  const batch = bee.batch({ checkout: version, wait: false, update: false })
  try {
    const root = (await batch.getRoot(false)) as TreeNode | null
    const stack = root === null ? [] : [root]
    for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
      out.add(node.block.seq)
      for (const key of node.keys) out.add(key.seq)
      for (let i = 0; i < node.children.length; i++) stack.push(await node.getChildNode(i))
    }
  } finally {
    await batch.close()
  }
}

/**
 * Clears Hyperbee blocks no longer reachable, one playlist update behind: a block is
 * cleared once neither the current tree nor the tree of the previous update references
 * it, so a reader one version behind can still walk its tree. (Hyperbee's own
 * `clearUnlinked` walks old versions, and TreeNode preloading then re-downloads cleared
 * blocks from any peer that has them; this walks only trees whose blocks are all local.)
 * Work per run is O(tree size + blocks written since the previous run).
 */
export class BeeCollector {
  private protectedSeqs = new Set<number>()
  private sweepFrom = 1 // block 0 is the Hyperbee header
  private previousVersion = 0

  constructor (private readonly bee: Hyperbee, private readonly core: Hypercore) {}

  /** Runs after each playlist update; returns the seqs it cleared, ascending. */
  async collect (): Promise<number[]> {
    const version = this.core.length
    const keep = new Set<number>()
    await addReachable(this.bee, version, keep)
    if (this.previousVersion > 1) await addReachable(this.bee, this.previousVersion, keep)

    const limit = Math.max(this.sweepFrom, this.previousVersion)
    const candidates = [...this.protectedSeqs].filter((seq) => seq < this.sweepFrom)
    for (let seq = this.sweepFrom; seq < limit; seq++) candidates.push(seq)
    const doomed = candidates.filter((seq) => !keep.has(seq)).sort((a, b) => a - b)
    for (const [start, end] of runs(doomed)) await this.core.clear(start, end)

    this.protectedSeqs = keep
    this.sweepFrom = limit
    this.previousVersion = version
    return doomed
  }
}

/** Sorted seqs as [start, end) runs. */
function runs (sorted: number[]): Array<[number, number]> {
  const out: Array<[number, number]> = []
  for (const seq of sorted) {
    const last = out[out.length - 1]
    if (last !== undefined && last[1] === seq) last[1] = seq + 1
    else out.push([seq, seq + 1])
  }
  return out
}
