import { open, readFile, truncate, type FileHandle } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { Logger } from '@arus/service'
import { ResellerError } from '../errors.js'
import { LedgerLine, lineShapeProblem, totalsDelta, type LedgerDraft, type LedgerType } from './line.js'

/**
 * The credit ledger (issue: "a credit ledger that never loses a credit"): an append-only file
 * of JSON lines. An append is written and fdatasync'ed before it resolves, so an
 * acknowledged operation survives kill -9 and power loss; balances are derived from the lines.
 * Appends are serialized (one at a time, balance checks inside the turn), so concurrent
 * operations can neither overdraw nor double-spend. At open, a torn last line (a write cut
 * by a crash: no newline, or not valid) is cut off and logged; an invalid line before the
 * last refuses to open. The invariant Σ balances = minted − consumed, and every line's
 * recorded balance, are checked at open and after every append.
 */

export interface LedgerTotals {
  seq: number
  minted: number
  consumed: number
  /** Σ balances. */
  outstanding: number
  invariantOk: boolean
}

/** What a query filters on (newest first). */
export interface LedgerQuery {
  principal?: string | undefined
  account?: string | undefined
  type?: LedgerType | undefined
  /** Only lines with seq < before. */
  before?: number | undefined
  limit: number
  /** Lines the caller may see. */
  visible?: (line: LedgerLine) => boolean
}

/** A draft that raised a duplicate ref: the line written the first time. */
export interface Appended { line: LedgerLine; duplicate: boolean }

interface State {
  lines: LedgerLine[]
  balances: Map<string, number>
  refs: Map<string, LedgerLine>
  minted: number
  consumed: number
  outstanding: number
}

const emptyState = (): State => ({ lines: [], balances: new Map(), refs: new Map(), minted: 0, consumed: 0, outstanding: 0 })

/** Applies a line to the state; a problem (bad balance, negative, shape) is returned, never thrown. */
function applyLine (s: State, line: LedgerLine): string | null {
  const shape = lineShapeProblem(line)
  if (shape !== null) return shape
  if (line.seq !== s.lines.length + 1) return `seq ${line.seq} follows ${s.lines.length}`
  const balance = (s.balances.get(line.principal) ?? 0) + line.amount
  if (balance !== line.balance) return `balance of ${line.principal} is ${balance}, the line says ${line.balance}`
  if (balance < 0) return `balance of ${line.principal} would be negative`
  let counter: number | undefined
  if (line.counterparty !== undefined) {
    if (line.counterparty === line.principal) return 'principal and counterparty are the same'
    counter = (s.balances.get(line.counterparty) ?? 0) - line.amount
    if (counter !== line.counterpartyBalance) return `balance of ${line.counterparty} is ${counter}, the line says ${String(line.counterpartyBalance)}`
    if (counter < 0) return `balance of ${line.counterparty} would be negative`
  }
  if (line.ref !== undefined && s.refs.has(line.ref)) return `ref ${line.ref} appears twice`
  s.balances.set(line.principal, balance)
  if (line.counterparty !== undefined) s.balances.set(line.counterparty, counter!)
  const d = totalsDelta(line)
  s.minted += d.minted
  s.consumed += d.consumed
  s.outstanding += d.minted - d.consumed
  if (line.ref !== undefined) s.refs.set(line.ref, line)
  s.lines.push(line)
  return null
}

/** Σ balances recomputed from the map (the invariant's left side). */
const sumBalances = (s: State) => [...s.balances.values()].reduce((a, b) => a + b, 0)

export class Ledger {
  private state: State
  private handle: FileHandle | null
  private size: number
  private turn: Promise<unknown> = Promise.resolve()
  private invariantOk = true

  private constructor (readonly path: string, private readonly log: Logger, state: State, handle: FileHandle | null, size: number, private readonly now: () => number) {
    this.state = state
    this.handle = handle
    this.size = size
    this.check()
  }

  /**
   * Reads, recovers and verifies the ledger. `readOnly` (CLI beside the daemon) neither cuts a
   * torn tail nor opens for appends.
   */
  static async open (path: string, log: Logger, init: { readOnly?: boolean; now?: () => number } = {}): Promise<Ledger> {
    const { state, validBytes, torn } = await replay(path)
    if (torn > 0 && init.readOnly !== true) {
      await truncate(path, validBytes)
      log.warn({ event: 'ledger.torn_tail', cutBytes: torn, seq: state.lines.length }, 'ledger: a torn last line (cut by a crash before it was acknowledged) was removed')
    }
    let handle: FileHandle | null = null
    if (init.readOnly !== true) {
      handle = await open(path, 'a', 0o600)
      await handle.datasync()
      await syncDir(dirname(path))
    }
    return new Ledger(path, log, state, handle, validBytes, init.now ?? Date.now)
  }

  /** Verifies a ledger file without changing it (the CLI's verify-ledger). */
  static async verifyFile (path: string): Promise<LedgerTotals & { tornBytes: number }> {
    const { state, torn } = await replay(path)
    const outstanding = sumBalances(state)
    return { seq: state.lines.length, minted: state.minted, consumed: state.consumed, outstanding, invariantOk: outstanding === state.minted - state.consumed, tornBytes: torn }
  }

  /** Re-checks Σ balances = minted − consumed; logs once when it breaks. */
  check (): LedgerTotals {
    const s = this.state
    const outstanding = sumBalances(s)
    const ok = outstanding === s.minted - s.consumed && outstanding === s.outstanding && [...s.balances.values()].every((b) => b >= 0)
    if (!ok && this.invariantOk) this.log.error({ event: 'ledger.invariant', seq: s.lines.length, outstanding, minted: s.minted, consumed: s.consumed }, 'ledger invariant broken')
    this.invariantOk = ok
    return { seq: s.lines.length, minted: s.minted, consumed: s.consumed, outstanding, invariantOk: ok }
  }

  totals (): LedgerTotals {
    const s = this.state
    return { seq: s.lines.length, minted: s.minted, consumed: s.consumed, outstanding: s.outstanding, invariantOk: this.invariantOk }
  }

  balance (principal: string): number { return this.state.balances.get(principal) ?? 0 }
  seq (): number { return this.state.lines.length }
  byRef (ref: string): LedgerLine | undefined { return this.state.refs.get(ref) }
  line (seq: number): LedgerLine | undefined { return this.state.lines[seq - 1] }

  /** Lines newest first. */
  query (q: LedgerQuery): LedgerLine[] {
    const out: LedgerLine[] = []
    const lines = this.state.lines
    const start = Math.min(lines.length, (q.before ?? Infinity) - 1)
    for (let i = start - 1; i >= 0 && out.length < q.limit; i--) {
      const l = lines[i]!
      if (q.principal !== undefined && l.principal !== q.principal && l.counterparty !== q.principal) continue
      if (q.account !== undefined && l.account !== q.account) continue
      if (q.type !== undefined && l.type !== q.type) continue
      if (q.visible && !q.visible(l)) continue
      out.push(l)
    }
    return out
  }

  /** Every line, oldest first (read only). */
  lines (): readonly LedgerLine[] { return this.state.lines }

  /** Lines of an account after seq `after`, oldest first (settling interrupted operations). */
  accountLines (account: string, after = 0): LedgerLine[] {
    return this.state.lines.slice(after).filter((l) => l.account === account)
  }

  /** TRIAL lines of `principal` since `since` (epoch ms). */
  trialsSince (principal: string, since: number): number {
    let n = 0
    const lines = this.state.lines
    for (let i = lines.length - 1; i >= 0 && lines[i]!.ts >= since; i--) if (lines[i]!.type === 'TRIAL' && lines[i]!.principal === principal) n++
    return n
  }

  /**
   * Appends one line in the ledger's turn. `draft` is called inside the turn with the current
   * balances (so its checks and the write are one step); it returns the line to write, or null
   * to write nothing. A draft whose ref is already in the ledger writes nothing and resolves to
   * the first line with `duplicate: true`. A debit beyond the balance throws 402.
   */
  append (draft: (ledger: Ledger) => LedgerDraft | null): Promise<Appended | null> {
    const run = this.turn.then(async () => {
      if (this.handle === null) throw ResellerError.of('RESELLER_CLOSED')
      const d = draft(this)
      if (d === null) return null
      if (d.ref !== undefined) {
        const first = this.state.refs.get(d.ref)
        if (first) return { line: first, duplicate: true }
      }
      const shape = lineShapeProblem(d)
      if (shape !== null) throw ResellerError.invalid(shape)
      const balance = this.balance(d.principal) + d.amount
      if (balance < 0) throw ResellerError.insufficient(this.balance(d.principal), -d.amount)
      const counter = d.counterparty === undefined ? undefined : this.balance(d.counterparty) - d.amount
      if (counter !== undefined && counter < 0) throw ResellerError.insufficient(this.balance(d.counterparty!), d.amount)
      const line: LedgerLine = LedgerLine.parse({
        seq: this.state.lines.length + 1,
        ts: this.now(),
        ...d,
        balance,
        ...(counter !== undefined ? { counterpartyBalance: counter } : {})
      })
      const bytes = Buffer.from(`${JSON.stringify(line)}\n`)
      try {
        await this.handle.write(bytes, 0, bytes.length)
        await this.handle.datasync()
      } catch (err) {
        // Nothing was acknowledged: take back whatever part of the line reached the file.
        await this.handle.truncate(this.size).catch(() => {})
        throw err
      }
      this.size += bytes.length
      const problem = applyLine(this.state, line)
      if (problem !== null) this.log.error({ event: 'ledger.apply', seq: line.seq, problem }, 'ledger line did not apply')
      this.check()
      return { line, duplicate: false }
    })
    this.turn = run.catch(() => {})
    return run
  }

  async close (): Promise<void> {
    await this.turn
    const h = this.handle
    this.handle = null
    await h?.close()
  }
}

async function syncDir (dir: string): Promise<void> {
  const h = await open(dir, 'r')
  try { await h.sync() } catch { /* some filesystems refuse a directory fsync */ } finally { await h.close() }
}

/** Replays a ledger file: every complete valid line; a torn or invalid last line is counted, not applied. */
async function replay (path: string): Promise<{ state: State; validBytes: number; torn: number }> {
  let buf: Buffer
  try {
    buf = await readFile(path)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return { state: emptyState(), validBytes: 0, torn: 0 }
    throw err
  }
  const state = emptyState()
  let offset = 0
  let lineNo = 0
  while (offset < buf.length) {
    const nl = buf.indexOf(0x0a, offset)
    const end = nl === -1 ? buf.length : nl
    const text = buf.subarray(offset, end).toString('utf8')
    lineNo++
    const last = nl === -1 || nl === buf.length - 1
    let problem: string | null
    if (nl === -1) problem = 'no newline (torn write)'
    else {
      let parsed: ReturnType<typeof LedgerLine.safeParse>
      try { parsed = LedgerLine.safeParse(JSON.parse(text)) } catch { parsed = LedgerLine.safeParse(undefined) }
      problem = parsed.success ? applyLine(state, parsed.data) : 'not a valid ledger line'
    }
    if (problem !== null) {
      if (last) return { state, validBytes: offset, torn: buf.length - offset }
      throw ResellerError.of('RESELLER_LEDGER_CORRUPT', `ledger ${path} line ${lineNo}: ${problem}; the reseller will not start on a damaged ledger (restore it from a backup)`)
    }
    offset = end + 1
  }
  return { state, validBytes: offset, torn: 0 }
}
