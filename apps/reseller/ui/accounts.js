// Accounts tab: the balance (and minting for admin tiers), the accounts in scope with search,
// filter and paging, per row renew, suspend/resume and delete, and the forms that activate an
// account or start a trial (docs/reseller.md "Accounts", GET /api/accounts).
import { button, h, table, when } from '/kit/shell.js'
import { createAccountForm, createTrialForm } from './account-forms.js'
import { creditsBox } from './credits.js'
import { loadMe } from './session.js'

const enc = encodeURIComponent
const FILTERS = [{ value: '', label: 'all' }, 'active', 'disabled', 'expiring', 'trial']
const PAGE_SIZES = ['10', '25', '50', '100']
const DEFAULT_PAGE = '25'
/** Typing pauses this long before the search is sent. */
const SEARCH_DELAY_MS = 250

function badge (cls, text) {
  return h('span', { class: 'badge ' + cls }, text)
}

function statusCell (a) {
  return [badge('status-' + a.status, a.status), a.trial ? [' ', badge('trial', 'trial')] : null]
}

function rowActions (ui, a) {
  const path = '/api/accounts/' + enc(a.name)
  const months = h('input', { type: 'number', class: 'months', min: 1, max: 120, step: 1, value: 1, 'aria-label': 'Months to renew ' + a.name })
  const out = [
    months,
    button('Renew', ui.action(() => ui.api('POST', path + '/renew', { months: Number(months.value) }),
      (r) => 'Account ' + r.name + ' renewed until ' + when(r.expiresAt)), 'renew')
  ]
  if (a.status === 'active') out.push(button('Suspend', ui.action(() => ui.api('POST', path + '/status', { status: 'disabled' }), 'Account ' + a.name + ' suspended'), 'suspend'))
  if (a.status === 'disabled') out.push(button('Resume', ui.action(() => ui.api('POST', path + '/status', { status: 'active' }), 'Account ' + a.name + ' resumed'), 'resume'))
  out.push(button('Delete', ui.action(async () => {
    if (!confirm('Delete account ' + a.name + '? The viewer is removed from the panel.')) return
    const r = await ui.api('DELETE', path)
    ui.say('Account ' + a.name + ' deleted' + (r.refunded ? ', ' + r.refunded + ' credits refunded' : ''))
  }), 'danger delete'))
  return out
}

export function accountsTab () {
  let credits, q, filter, pageSize, tableEl, range, prev, next
  let offset = 0
  let total = 0
  let renders = 0
  let searchTimer = null

  /** A new search, filter or page size starts at the first page. */
  function restart (ui) {
    offset = 0
    ui.refresh()
  }

  async function render (el, ui) {
    const mine = ++renders
    const limit = Number(pageSize.value)
    const query = new URLSearchParams({ offset: String(offset), limit: String(limit) })
    if (q.value.trim()) query.set('q', q.value.trim())
    if (filter.value) query.set('filter', filter.value)
    const [me, page] = await Promise.all([loadMe(ui), ui.api('GET', '/api/accounts?' + query)])
    if (mine !== renders) return // a newer render (another search or page) owns the table
    credits.update(me)
    total = page.total
    if (page.items.length === 0 && offset > 0 && total > 0) {
      // The page emptied (a delete, a narrower search): show the last one that has rows.
      offset = Math.floor((total - 1) / limit) * limit
      return render(el, ui)
    }
    table(tableEl, [
      { label: 'Name', cell: (a) => h('strong', {}, a.name) },
      { label: 'Owner', cell: (a) => a.owner },
      { label: 'Status', cell: statusCell },
      { label: 'Expires', class: 'num', cell: (a) => when(a.expiresAt) },
      { label: 'Months', class: 'num', cell: (a) => a.months },
      { label: 'Packages', cell: (a) => (a.packages ? a.packages.join(', ') : h('span', { class: 'muted' }, 'panel default')) },
      { label: 'Devices', class: 'num', cell: (a) => a.maxDevices },
      { label: '', class: 'actions', cell: (a) => rowActions(ui, a) }
    ], page.items, {
      rowAttrs: (a) => ({ 'data-account': a.name, 'data-status': a.status, 'data-trial': a.trial ? 'true' : 'false' }),
      empty: q.value.trim() || filter.value ? 'No accounts match.' : 'No accounts yet: create one below.'
    })
    range.textContent = total === 0 ? '0 of 0' : (offset + 1) + '–' + (offset + page.items.length) + ' of ' + total
    prev.disabled = offset === 0
    next.disabled = offset + page.items.length >= total
  }

  return {
    id: 'accounts',
    label: 'Accounts',
    setup (el, ui) {
      credits = creditsBox(ui)
      q = h('input', { id: 'accounts-q', type: 'search', maxlength: 64, placeholder: 'name or owner', 'aria-label': 'Search accounts' })
      q.addEventListener('input', () => {
        clearTimeout(searchTimer)
        searchTimer = setTimeout(() => restart(ui), SEARCH_DELAY_MS)
      })
      filter = h('select', { id: 'accounts-filter', 'aria-label': 'Filter accounts', onchange: () => restart(ui) },
        FILTERS.map((f) => (typeof f === 'string' ? h('option', { value: f }, f) : h('option', { value: f.value }, f.label))))
      pageSize = h('select', { id: 'accounts-page-size', 'aria-label': 'Accounts per page', onchange: () => restart(ui) },
        PAGE_SIZES.map((n) => h('option', { value: n, selected: n === DEFAULT_PAGE }, n + ' per page')))
      tableEl = h('div', { id: 'accounts-table' })
      range = h('span', { id: 'accounts-range' })
      prev = button('Previous', ui.action(async () => { offset = Math.max(0, offset - Number(pageSize.value)) }), 'prev')
      next = button('Next', ui.action(async () => { offset += Number(pageSize.value) }), 'next')
      prev.id = 'accounts-prev'
      next.id = 'accounts-next'
      el.append(
        h('h2', {}, 'Accounts'), credits.el,
        h('div', { class: 'toolbar' }, q, filter, pageSize),
        tableEl,
        h('div', { id: 'accounts-pager', class: 'pager' }, prev, range, next),
        h('h3', {}, 'Create an account'), createAccountForm(ui),
        h('h3', {}, 'Start a free trial'), createTrialForm(ui))
    },
    render,
    /** After a log-out: the next principal starts from an unfiltered first page. */
    reset () {
      if (!q) return
      clearTimeout(searchTimer)
      q.value = ''
      filter.value = ''
      pageSize.value = DEFAULT_PAGE
      offset = 0
    }
  }
}
