// Alerts tab: problem storms the panel correlated from reports (GET /api/alerts), with ack and
// resolve (spec 1 "Alert", "States and transitions"). Alerts carry counts only, never a reporter.
import { button, h, table, when } from '/kit/shell.js'

const enc = encodeURIComponent
const REFRESH_MS = 15_000

/** Distinct viewers; past the tracked cap the count is a lower bound, marked as the notification marks it. */
const viewers = (a) => (a.reportersLowerBound ? '>=' : '') + a.reporters

const tallies = (a) => Object.entries(a.categories).sort((x, y) => y[1] - x[1] || x[0].localeCompare(y[0])).map(([c, n]) => c + ' ' + n).join(', ') || '-'

function statusCell (a) {
  if (a.status === 'resolved') return ['resolved', h('br'), h('span', { class: 'hint' }, when(a.resolvedAt))]
  if (a.status === 'ack') return ['ack', h('br'), h('span', { class: 'hint' }, when(a.ackAt))]
  return h('strong', { class: 'error' }, 'open')
}

export function alertsTab () {
  let disabled, status, alerts
  return {
    id: 'alerts',
    label: 'Alerts',
    refreshMs: REFRESH_MS,
    setup (el, ui) {
      status = h('select', { id: 'alerts-status', name: 'status', onchange: () => ui.refresh() },
        h('option', { value: '' }, 'any'), ['open', 'ack', 'resolved'].map((s) => h('option', { value: s }, s)))
      disabled = h('p', { id: 'alerts-disabled', class: 'notice', hidden: true },
        'Reports are disabled (REPORTS_RETENTION_DAYS=0), so no alert is ever opened.')
      const about = h('p', { class: 'hint' }, 'An alert opens when enough distinct viewers report one channel (or a login problem) within the alert window; one notification goes out per alert.')
      alerts = h('div', { id: 'alerts-table' })
      el.append(h('h2', {}, 'Alerts'), disabled, about, h('div', { class: 'filters' }, h('label', {}, 'Status ', status)), alerts)
    },
    async render (_el, ui) {
      const q = status.value ? '?status=' + enc(status.value) : ''
      const r = await ui.api('GET', '/api/alerts' + q)
      disabled.hidden = r.enabled
      table(alerts, [
        { label: 'Opened', cell: (a) => [when(a.openedAt), h('br'), h('span', { class: 'hint' }, 'last ' + when(a.lastAt))] },
        { label: 'Channel', cell: (a) => (a.kind === 'login' ? h('em', {}, 'login') : a.channel) },
        { label: 'Viewers', cell: (a) => h('span', { class: 'viewers' }, viewers(a)) },
        { label: 'Categories', cell: tallies },
        { label: 'Sampled / collapsed / shed', cell: (a) => `${a.sampled} / ${a.collapsed} / ${a.shedCount}` },
        { label: 'Status', cell: statusCell },
        {
          label: '',
          class: 'actions',
          cell: (a) => {
            const path = '/api/alerts/' + enc(a.id)
            return [
              a.status === 'open' ? button('Ack', ui.action(() => ui.api('POST', path + '/ack'), 'Alert acknowledged')) : null,
              a.status !== 'resolved' ? button('Resolve', ui.action(() => ui.api('POST', path + '/resolve'), 'Alert resolved')) : null
            ]
          }
        }
      ], r.alerts, { rowAttrs: (a) => ({ 'data-alert': a.id, 'data-status': a.status }), empty: r.enabled ? 'No alerts.' : 'Reports are disabled.' })
    }
  }
}
