import { appendFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { createLogger } from '@arus/service'
import { createLogSink, tmpDir } from '@arus/testkit'
import { Ledger } from '../src/ledger/ledger.js'

// The ledger file on a real disk: serialized appends that cannot overdraw, refs that make
// retries idempotent, torn-tail recovery, and a damaged middle refusing to open.

const open = async (dir: string, readOnly = false) => {
  const sink = createLogSink()
  const log = createLogger({ name: 'test', level: 'info', destination: sink.stream })
  return { ledger: await Ledger.open(join(dir, 'ledger.jsonl'), log, { readOnly }), sink }
}

describe('ledger', () => {
  it('200 concurrent debits of 1 against a balance of 50: exactly 50 pass, the rest are 402, the invariant holds', async (t) => {
    const dir = tmpDir(t, 'arus-ledger-')
    const { ledger } = await open(dir)
    await ledger.append(() => ({ type: 'MINT', actor: 'root', principal: 'root', amount: 50, note: '' }))
    const results = await Promise.allSettled(Array.from({ length: 200 }, (_, i) =>
      ledger.append(() => ({ type: 'ACTIVATE', actor: 'root', principal: 'root', amount: -1, account: `a${i}`, note: '' }))))
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(50)
    const refused = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected')
    expect(refused).toHaveLength(150)
    expect(refused.every((r) => r.reason.code === 'RESELLER_INSUFFICIENT_CREDITS' && r.reason.status === 402)).toBe(true)
    expect(ledger.balance('root')).toBe(0)
    expect(ledger.check()).toMatchObject({ seq: 51, minted: 50, consumed: 50, outstanding: 0, invariantOk: true })
    await ledger.close()
    const again = await open(dir)
    expect(again.ledger.totals()).toMatchObject({ seq: 51, invariantOk: true })
    await again.ledger.close()
  })

  it('a transfer is one line with both balances; a ref is written once', async (t) => {
    const { ledger } = await open(tmpDir(t, 'arus-ledger-'))
    await ledger.append(() => ({ type: 'MINT', actor: 'webhook', principal: 'a', amount: 10, ref: 'webhook:p1', note: '' }))
    const dup = await ledger.append(() => ({ type: 'MINT', actor: 'webhook', principal: 'a', amount: 99, ref: 'webhook:p1', note: '' }))
    expect(dup).toMatchObject({ duplicate: true, line: { seq: 1, amount: 10 } })
    const moved = await ledger.append(() => ({ type: 'TRANSFER', actor: 'a', principal: 'b', counterparty: 'a', amount: 4, note: '' }))
    expect(moved!.line).toMatchObject({ seq: 2, principal: 'b', balance: 4, counterparty: 'a', counterpartyBalance: 6 })
    await expect(ledger.append(() => ({ type: 'TRANSFER', actor: 'a', principal: 'b', counterparty: 'a', amount: 7, note: '' }))).rejects.toMatchObject({ status: 402 })
    await expect(ledger.append(() => ({ type: 'ADJUST', actor: 'a', principal: 'b', amount: 1, note: ' ' }))).rejects.toMatchObject({ code: 'RESELLER_INVALID_INPUT' })
    expect(ledger.seq()).toBe(2)
    await ledger.close()
  })

  it('cuts a torn last line at open (logged), leaves it to a read-only open, and refuses a damaged line before the last', async (t) => {
    const dir = tmpDir(t, 'arus-ledger-')
    const file = join(dir, 'ledger.jsonl')
    const first = await open(dir)
    await first.ledger.append(() => ({ type: 'MINT', actor: 'root', principal: 'root', amount: 5, note: '' }))
    await first.ledger.append(() => ({ type: 'MINT', actor: 'root', principal: 'root', amount: 6, note: '' }))
    await first.ledger.close()
    const good = await readFile(file, 'utf8')
    await appendFile(file, '{"seq":3,"ts":1,"actor":"ro')
    expect((await Ledger.verifyFile(file)).tornBytes).toBe(27)
    const ro = await open(dir, true)
    expect(ro.ledger.seq()).toBe(2)
    expect(await readFile(file, 'utf8')).not.toBe(good)
    const rw = await open(dir)
    expect(rw.sink.entries().some((l) => l.event === 'ledger.torn_tail')).toBe(true)
    expect(await readFile(file, 'utf8')).toBe(good)
    await rw.ledger.append(() => ({ type: 'MINT', actor: 'root', principal: 'root', amount: 1, note: '' }))
    expect(rw.ledger.totals()).toMatchObject({ seq: 3, outstanding: 12, invariantOk: true })
    await rw.ledger.close()

    // A complete last line that does not add up is torn too; one in the middle is damage.
    const lines = (await readFile(file, 'utf8')).trimEnd().split('\n')
    const forged = JSON.parse(lines[1]!)
    forged.balance = 999
    await writeFile(file, [lines[0], JSON.stringify(forged), lines[2]].join('\n') + '\n')
    await expect(open(dir)).rejects.toMatchObject({ code: 'RESELLER_LEDGER_CORRUPT', message: expect.stringContaining('line 2') })
  })
})
