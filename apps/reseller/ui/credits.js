// The credits box of the accounts tab: the caller's balance and trials used today (GET /api/me),
// and for admin tiers a mint form (POST /api/credits/mint; docs/reseller.md "Credits and the ledger").
import { facts, h } from '/kit/shell.js'

export function creditsBox (ui) {
  const dl = h('dl', { id: 'credits', class: 'facts' })
  const mint = ui.form({
    id: 'mint-form',
    fields: [
      { label: 'Credits', id: 'mint-amount', name: 'amount', type: 'number', min: 1, max: 1_000_000_000, step: 1, required: true },
      { label: 'For', id: 'mint-to', name: 'to', maxlength: 64, placeholder: 'yourself' },
      { label: 'Note', id: 'mint-note', name: 'note', maxlength: 500 }
    ],
    submit: h('button', { id: 'mint-submit', type: 'submit' }, 'Mint'),
    onSubmit: (f) => {
      const body = { amount: Number(f.amount) }
      if (f.to.trim()) body.to = f.to.trim()
      if (f.note.trim()) body.note = f.note.trim()
      return ui.api('POST', '/api/credits/mint', body)
    },
    done: (r) => 'Minted ' + r.line.amount + ' credits for ' + r.line.principal,
    reset: true
  })
  const el = h('section', { class: 'detail credits' }, dl,
    h('div', { id: 'mint-box', 'data-roles': 'admin co-admin', hidden: true }, h('h3', {}, 'Mint credits'), mint))
  return {
    el,
    /** Fills the box from a GET /api/me reply. */
    update (me) {
      facts(dl, [
        ['Balance', h('span', { id: 'balance' }, me.balance)],
        ['Trials today', h('span', { id: 'trials-today' }, me.trialsToday + ' of ' + me.trialDailyCap)]
      ])
    }
  }
}
