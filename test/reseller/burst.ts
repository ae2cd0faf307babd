import { seededRandom, type HttpClient } from '@arus/testkit'

/** A mulberry32 PRNG: the same mix of operations on every run. */
export const prng = seededRandom

/** Runs `jobs` with at most `width` in flight; resolves when all settled. */
export async function pool<T> (jobs: Array<() => Promise<T>>, width: number): Promise<Array<PromiseSettledResult<T>>> {
  const out: Array<PromiseSettledResult<T>> = new Array(jobs.length)
  let next = 0
  const worker = async () => {
    while (next < jobs.length) {
      const i = next++
      try { out[i] = { status: 'fulfilled', value: await jobs[i]!() } } catch (reason) { out[i] = { status: 'rejected', reason } }
    }
  }
  await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, worker))
  return out
}

export interface LedgerLine {
  seq: number; ts: number; actor: string; type: string; principal: string; amount: number; balance: number
  counterparty?: string; counterpartyBalance?: number; account?: string; ref?: string; note: string
}

/** Every ledger line, oldest first, paged through GET /api/ledger (bounded). */
export async function readLedger (client: HttpClient): Promise<LedgerLine[]> {
  const lines: LedgerLine[] = []
  let before: number | null = null
  for (let page = 0; page < 1000; page++) {
    const r: { lines: LedgerLine[]; next: number | null } = await client.api('GET', `/api/ledger?limit=500${before !== null ? `&before=${before}` : ''}`)
    lines.push(...r.lines)
    if (r.next === null) break
    before = r.next
  }
  return lines.reverse()
}

/**
 * Replays the lines independently of the daemon: seqs dense from 1, every recorded balance
 * equals the running one, none negative, and Σ balances = minted − consumed after every line.
 * Returns the final balances and totals; throws naming the first line that breaks a rule.
 */
export function replay (lines: readonly LedgerLine[]): { balances: Map<string, number>; minted: number; consumed: number } {
  const balances = new Map<string, number>()
  let minted = 0
  let consumed = 0
  lines.forEach((l, i) => {
    if (l.seq !== i + 1) throw new Error(`line ${i + 1} has seq ${l.seq}`)
    const b = (balances.get(l.principal) ?? 0) + l.amount
    if (b !== l.balance || b < 0) throw new Error(`#${l.seq}: ${l.principal} balance ${b}, line says ${l.balance}`)
    balances.set(l.principal, b)
    if (l.counterparty !== undefined) {
      const c = (balances.get(l.counterparty) ?? 0) - l.amount
      if (c !== l.counterpartyBalance || c < 0) throw new Error(`#${l.seq}: ${l.counterparty} balance ${c}, line says ${String(l.counterpartyBalance)}`)
      balances.set(l.counterparty, c)
    }
    if (l.type === 'MINT' || l.type === 'ADJUST') minted += l.amount
    if (l.type === 'ACTIVATE' || l.type === 'RENEW' || l.type === 'REFUND') consumed -= l.amount
    const sum = [...balances.values()].reduce((a, v) => a + v, 0)
    if (sum !== minted - consumed) throw new Error(`after #${l.seq}: Σ balances ${sum} ≠ minted ${minted} − consumed ${consumed}`)
  })
  return { balances, minted, consumed }
}
