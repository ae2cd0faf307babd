import type Hypercore from 'hypercore'

/**
 * Re-announces to every peer which blocks of `core` from `from` on this writer still has.
 *
 * Works around hypercore 11.37.1: a peer that saw us fully contiguous tracks only our
 * contiguous length. A clear() broadcasts a drop that lowers that length to the cleared
 * index, and the peer forgets every block above it. If it already sent us a `want` for
 * that batch, its next want is deduplicated and it never learns them again: those blocks
 * cannot be fetched from us until it reconnects (reproduced: a reader's bee lookups hang
 * on a node the writer has). Broadcasting the present runs restores the peer's bitfield;
 * hypercore skips peers that already have the blocks.
 */
export async function reannounce (core: Hypercore, from: number): Promise<void> {
  const replicator = core.core?.replicator as { peers: unknown[]; onhave(start: number, length: number, drop: boolean): void } | undefined
  if (replicator === undefined || replicator.peers.length === 0) return
  const length = core.length
  let run = -1
  for (let i = Math.max(0, from); i < length; i++) {
    const has = await core.has(i)
    if (has && run === -1) run = i
    if (!has && run !== -1) { replicator.onhave(run, i - run, false); run = -1 }
  }
  if (run !== -1) replicator.onhave(run, length - run, false)
}
