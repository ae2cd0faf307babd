// Reports tab: pseudonymous viewer problem reports (GET /api/reports, /api/reports/summary), their
// ack and resolve, and a test notification (spec 1 "Problem report", "Reports and alerts").
// Reports carry a 16-hex pseudonym, never a username or device id; all of it is shown as text.
import { button, chart, facts, h, table, when } from '/kit/shell.js'

const enc = encodeURIComponent
const HOUR_SEC = 3600
const REFRESH_MS = 30_000
/** The report categories of spec 1 "Problem report" (the API rejects any other). */
const CATEGORIES = ['no-audio', 'black-screen', 'visual-artifacts', 'buffering', 'wrong-content', 'login', 'other']
/** The server caps a note at 1000 characters (packages/reports NOTE_MAX) and strips control characters. */
const NOTE_MAX = 1000

/** A `<select>` of `'' → any` and `values`, keeping its current choice when the values change. */
function setOptions (select, values) {
  const chosen = select.value
  const all = chosen && !values.includes(chosen) ? [...values, chosen] : values
  select.replaceChildren(h('option', { value: '' }, 'any'), ...all.map((v) => h('option', { value: v }, v)))
  select.value = chosen
}

/** `{ key: n }` as a two-column table, largest first. */
function counts (el, label, byKey) {
  const rows = Object.entries(byKey).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
  table(el, [{ label, cell: (r) => r[0] }, { label: 'Reports', cell: (r) => r[1] }], rows, { empty: 'None.' })
}

function statusCell (r) {
  if (r.status === 'resolved') return ['resolved', h('br'), h('span', { class: 'hint' }, when(r.resolvedAt))]
  if (r.status === 'ack') return ['ack', h('br'), h('span', { class: 'hint' }, when(r.ackAt))]
  return h('strong', {}, 'new')
}

function eventsCell (r) {
  if (r.events.length === 0) return '-'
  return h('details', {}, h('summary', {}, r.events.length + (r.events.length === 1 ? ' event' : ' events')),
    h('ul', { class: 'events' }, r.events.map((e) => h('li', {}, when(e.at), ' ', e.kind, e.detail ? ': ' + e.detail : ''))))
}

function notifyResults (el, r) {
  if (!r.enabled) {
    el.replaceChildren(h('p', { class: 'hint' }, 'No notification target is configured (REPORTS_WEBHOOK_URL, or REPORTS_MSGR_BOT_TOKEN with REPORTS_MSGR_CHAT_ID).'))
    return
  }
  table(el, [
    { label: 'Target', cell: (x) => x.target },
    { label: 'Result', cell: (x) => h('span', { class: x.ok ? 'ok' : 'error' }, x.ok ? 'delivered' : 'failed') },
    { label: 'HTTP status', cell: (x) => x.status ?? '-' },
    { label: 'Attempts', cell: (x) => x.attempts },
    { label: 'Error', cell: (x) => x.error ?? '' }
  ], r.results, { rowAttrs: (x) => ({ 'data-target': x.target }), empty: 'No result.' })
}

export function reportsTab () {
  let disabled, body, summary, byHour, byChannel, byCategory, status, channel, category, reports, notified
  // Notes typed but not yet sent, by report id: they survive the periodic re-render.
  const drafts = new Map()

  function actions (ui, r) {
    const path = '/api/reports/' + enc(r.id)
    if (r.status === 'resolved') return null
    const note = h('input', {
      name: 'note', class: 'note', placeholder: 'note (optional)', maxlength: NOTE_MAX, 'aria-label': 'Resolution note',
      value: drafts.get(r.id) ?? '', oninput: (ev) => drafts.set(r.id, ev.target.value)
    })
    const resolve = ui.action(async () => {
      const text = note.value.trim()
      await ui.api('POST', path + '/resolve', text ? { note: text } : {})
      drafts.delete(r.id)
    }, 'Report resolved')
    note.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') resolve(ev) })
    return [
      r.status === 'new' ? button('Ack', ui.action(() => ui.api('POST', path + '/ack'), 'Report acknowledged')) : null,
      note,
      button('Resolve', resolve)
    ]
  }

  return {
    id: 'reports',
    label: 'Reports',
    refreshMs: REFRESH_MS,
    setup (el, ui) {
      const select = (id, name) => h('select', { id, name, onchange: () => ui.refresh() })
      status = select('reports-status', 'status')
      channel = select('reports-channel', 'channel')
      category = select('reports-category', 'category')
      setOptions(status, ['new', 'ack', 'resolved'])
      setOptions(category, CATEGORIES)
      disabled = h('p', { id: 'reports-disabled', class: 'notice', hidden: true },
        'Reports are disabled (REPORTS_RETENTION_DAYS=0): the panel stores no reports and viewers\' apps are told it does not accept them.')
      summary = h('dl', { id: 'reports-summary', class: 'facts' })
      byHour = h('div', { id: 'reports-by-hour', class: 'chart' })
      byChannel = h('div', { id: 'reports-by-channel' })
      byCategory = h('div', { id: 'reports-by-category' })
      reports = h('div', { id: 'reports-table' })
      notified = h('div', { id: 'reports-notify-results' })
      body = h('div', { id: 'reports-body' },
        summary, byHour,
        h('div', { class: 'split' }, h('div', {}, h('h3', {}, 'By channel'), byChannel), h('div', {}, h('h3', {}, 'By category'), byCategory)),
        h('h3', {}, 'Reports'),
        h('div', { id: 'reports-filter', class: 'filters' },
          h('label', {}, 'Status ', status), h('label', {}, 'Channel ', channel), h('label', {}, 'Category ', category)),
        reports)
      el.append(h('h2', {}, 'Problem reports'), disabled, body,
        h('h3', {}, 'Notifications'),
        h('p', { class: 'hint' }, 'One notification goes out per opened alert. A test sends a synthetic message through the configured targets.'),
        h('button', {
          type: 'button',
          id: 'reports-test-notify',
          onclick: ui.action(async () => notifyResults(notified, await ui.api('POST', '/api/reports/test-notify')), 'Test notification sent')
        }, 'Send test notification'),
        notified)
    },
    async render (_el, ui) {
      const q = new URLSearchParams({ limit: '200' })
      for (const s of [status, channel, category]) if (s.value) q.set(s.name, s.value)
      const [s, list] = await Promise.all([ui.api('GET', '/api/reports/summary'), ui.api('GET', '/api/reports?' + q)])
      disabled.hidden = s.enabled
      body.hidden = !s.enabled
      if (!s.enabled) return
      facts(summary, [
        ['Reports kept', `${s.total} (${s.occurrences} occurrences, ${s.retentionDays} days retention)`],
        ['New', s.new], ['Acknowledged', s.ack], ['Resolved', s.resolved],
        ['Open alerts', s.openAlerts],
        ['Shed', s.shed], ['Collapsed', s.collapsed], ['Throttled', s.throttled]
      ])
      counts(byChannel, 'Channel', s.byChannel)
      counts(byCategory, 'Category', s.byCategory)
      setOptions(channel, Object.keys(s.byChannel).sort())
      // A re-render replaces the row a note is being typed in: give the focus back afterwards.
      const focused = document.activeElement?.closest?.('#reports-table tr[data-report]')?.dataset.report
      table(reports, [
        { label: 'When', cell: (r) => [when(r.lastAt), r.lastAt !== r.at ? h('span', { class: 'hint' }, ' (first ' + when(r.at) + ')') : null] },
        { label: 'Channel', cell: (r) => r.channel },
        { label: 'Category', cell: (r) => [r.category, r.text ? h('div', { class: 'hint' }, r.text) : null] },
        { label: 'Count', cell: (r) => r.count },
        { label: 'Reporter', cell: (r) => r.reporter, class: 'mono' },
        { label: 'App / platform', cell: (r) => [r.appVersion, ' / ', r.platform, h('br'), h('span', { class: 'hint' }, r.peers + ' peers')] },
        { label: 'Events', cell: eventsCell },
        { label: 'Status', cell: statusCell },
        { label: 'Note', cell: (r) => r.note ?? '' },
        { label: '', class: 'actions', cell: (r) => actions(ui, r) }
      ], list.reports, { rowAttrs: (r) => ({ 'data-report': r.id, 'data-status': r.status }), empty: 'No reports match.' })
      if (focused) reports.querySelector(`tr[data-report="${CSS.escape(focused)}"] input.note`)?.focus()
      const xs = s.byHour.map((b) => Math.floor(b.at / 1000))
      await chart(byHour, {
        title: 'Reports per hour (last 24 hours)',
        yLabel: 'reports',
        data: [xs, s.byHour.map((b) => b.count)],
        series: [{ label: 'reports', fill: 'rgba(21, 101, 192, 0.15)' }],
        xRange: [xs[0], xs[xs.length - 1] + HOUR_SEC],
        height: 200
      })
    }
  }
}
