// Ledger tab: the credit ledger lines the caller may see, newest first, a page at a time
// ('More' follows the reply's `next` cursor as `before`), optionally of one type
// (GET /api/ledger; docs/reseller.md "Credits and the ledger").
import { button, h, table, when } from '/kit/shell.js'

const PAGE = 25
const TYPES = ['MINT', 'ADJUST', 'TRANSFER', 'RECLAIM', 'ACTIVATE', 'RENEW', 'REFUND', 'TRIAL']

/** +5 / -1 / 0. */
function signed (n) {
  return n > 0 ? '+' + n : String(n)
}

export function ledgerTab () {
  let type, tableEl, more
  let lines = []
  let next = null
  /** Bumped by each render: a 'More' answer of an older listing is dropped. */
  let generation = 0

  function fetchPage (ui, before) {
    const query = new URLSearchParams({ limit: String(PAGE) })
    if (type.value) query.set('type', type.value)
    if (before !== null) query.set('before', String(before))
    return ui.api('GET', '/api/ledger?' + query)
  }

  function draw () {
    table(tableEl, [
      { label: 'Seq', class: 'num', cell: (l) => l.seq },
      { label: 'Time', class: 'num', cell: (l) => when(l.ts) },
      { label: 'Type', cell: (l) => h('span', { class: 'badge type-' + l.type.toLowerCase() }, l.type) },
      { label: 'Principal', cell: (l) => l.principal },
      { label: 'Amount', class: 'num', cell: (l) => h('span', { class: l.amount < 0 ? 'debit' : 'credit' }, signed(l.amount)) },
      { label: 'Balance', class: 'num', cell: (l) => l.balance ?? '–' },
      // Balances of principals outside one's scope come back null: show the name alone.
      { label: 'From / to', cell: (l) => (l.counterparty ? l.counterparty + (l.counterpartyBalance == null ? '' : ' (' + l.counterpartyBalance + ')') : '') },
      { label: 'Account', cell: (l) => l.account ?? '' },
      { label: 'By', cell: (l) => l.actor },
      { label: 'Note', cell: (l) => [l.note, l.ref ? h('span', { class: 'muted' }, ' ' + l.ref) : null] }
    ], lines, { rowAttrs: (l) => ({ 'data-seq': l.seq, 'data-type': l.type }), empty: 'No ledger lines.' })
    more.hidden = next === null
  }

  async function loadMore (ui) {
    const mine = generation
    try {
      const r = await fetchPage(ui, next)
      if (mine !== generation) return
      lines = lines.concat(r.lines)
      next = r.next
      draw()
    } catch (err) {
      ui.report(err)
    }
  }

  return {
    id: 'ledger',
    label: 'Ledger',
    setup (el, ui) {
      type = h('select', { id: 'ledger-type', 'aria-label': 'Line type', onchange: () => ui.refresh() },
        h('option', { value: '' }, 'all types'), TYPES.map((t) => h('option', { value: t }, t)))
      tableEl = h('div', { id: 'ledger-table' })
      more = button('More', () => loadMore(ui), 'more')
      more.id = 'ledger-more'
      more.hidden = true
      el.append(h('h2', {}, 'Ledger'), h('div', { class: 'toolbar' }, type), tableEl, more)
    },
    async render (_el, ui) {
      const mine = ++generation
      const r = await fetchPage(ui, null)
      if (mine !== generation) return
      lines = r.lines
      next = r.next
      draw()
    },
    /** After a log-out: the next principal sees every type, and nothing of this one's lines. */
    reset () {
      if (!type) return
      generation++
      type.value = ''
      lines = []
      next = null
      draw()
    }
  }
}
