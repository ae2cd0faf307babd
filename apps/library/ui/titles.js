// Titles tab: the library's status, an add form, every title with its ingest progress, and per
// title its logs, a re-ingest and a delete (docs/library.md "Titles", "Control API").
import { button, facts, h, list, table, when } from '/kit/shell.js'

const enc = encodeURIComponent
/** Poll period while a title is queued or ingesting (its progress moves), and otherwise. */
const BUSY_MS = 1000
const IDLE_MS = 10_000
/** Log lines shown (the API keeps at most 400). */
const LOG_LINES = 200
const MODES = [
  { value: 'auto', label: 'auto (copy H.264/AAC, else transcode)' },
  { value: 'copy', label: 'copy (remux)' },
  { value: 'transcode', label: 'transcode' }
]

/** 1536 → '1.5 KiB'. */
function size (bytes) {
  if (!bytes) return '-'
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB']
  let n = bytes
  let u = 0
  while (n >= 1024 && u < units.length - 1) { n /= 1024; u++ }
  return (u === 0 ? String(n) : n.toFixed(n < 10 ? 1 : 0)) + ' ' + units[u]
}

/** 3725.4 → '1:02:05'; 40 → '0:40'. */
function duration (sec) {
  if (sec === null || sec === undefined) return '-'
  const s = Math.round(sec)
  const mm = String(Math.floor(s / 60) % 60)
  const ss = String(s % 60).padStart(2, '0')
  return s >= 3600 ? Math.floor(s / 3600) + ':' + mm.padStart(2, '0') + ':' + ss : mm + ':' + ss
}

/** The ingest column: a bar labelled with the phase and percentage while a title is ingested. */
function progress (t) {
  if (t.state === 'queued') return h('span', { class: 'muted' }, 'waiting for a slot')
  if (t.state !== 'ingesting') return '-'
  if (!t.ingest) return [h('progress', { class: 'progress', max: 100 }), h('span', { class: 'progress-label' }, 'starting')]
  const { phase, pct } = t.ingest
  return [
    h('progress', { class: 'progress', max: 100, value: pct, 'data-pct': pct, 'data-phase': phase, title: phase + ' ' + pct + '%' }),
    h('span', { class: 'progress-label' }, phase + ' ' + pct + '%')
  ]
}

/** The panel column: registered, the panel's refusal verbatim, or why nothing is registered yet. */
function registration (t, panelConfigured) {
  if (t.registered) return 'registered'
  if (t.registerError) return h('span', { class: panelConfigured ? 'error' : 'muted' }, t.registerError)
  return t.state === 'ready' ? 'pending' : '-'
}

export function titlesTab () {
  let status, titles, logsView, logsTitle, logs
  let logsOf = null
  let timer = null
  let busy = false

  /** The next poll: quick while something ingests; none once the tab is hidden or the session ended. */
  function schedule (el, ui) {
    clearTimeout(timer)
    timer = setTimeout(() => {
      timer = null
      if (!el.hidden && !document.hidden) ui.refresh()
    }, busy ? BUSY_MS : IDLE_MS)
  }

  function closeLogs () {
    logsOf = null
    logsView.hidden = true
    logs.textContent = ''
  }

  function actions (ui, t) {
    const path = '/api/titles/' + enc(t.id)
    return [
      button('Logs', ui.action(async () => { logsOf = t.id })),
      button('Re-ingest', ui.action(() => ui.api('POST', path + '/ingest', {}), 'Title ' + t.id + ' queued for re-ingest')),
      button('Delete', ui.action(async () => {
        if (!confirm('Delete title ' + t.id + '? Its feed stops seeding and is purged.')) return
        await ui.api('DELETE', path)
        if (logsOf === t.id) closeLogs()
        ui.say('Title ' + t.id + ' deleted')
      }), 'danger')
    ]
  }

  return {
    id: 'titles',
    label: 'Titles',
    setup (el, ui) {
      status = h('dl', { id: 'title-status', class: 'facts' })
      titles = h('div', { id: 'titles-table' })
      logsTitle = h('span', { id: 'title-logs-id' })
      logs = h('pre', { id: 'title-logs' })
      logsView = h('section', { id: 'title-logs-view', class: 'detail', hidden: true },
        h('h3', {}, 'Logs of ', logsTitle, ' ', button('Close', closeLogs)), logs)
      const add = ui.form({
        id: 'title-add-form',
        fields: [
          { label: 'Id', id: 'title-add-id', name: 'id', required: true, pattern: '[A-Za-z0-9_.\\-]{1,64}', placeholder: 'vod.film-1' },
          { label: 'Input', id: 'title-add-input', name: 'input', required: true, size: 40, placeholder: '/absolute/path.mp4 or https://…' },
          { label: 'Title', id: 'title-add-title', name: 'title', maxlength: 200 },
          { label: 'Categories', id: 'title-add-category', name: 'category', placeholder: 'comma-separated' },
          { label: 'Mode', id: 'title-add-mode', name: 'mode', options: MODES },
          { label: 'Segment s', id: 'title-add-hlstime', name: 'hlsTime', type: 'number', min: 1, max: 30, placeholder: 'default' }
        ],
        submit: h('button', { id: 'title-add-submit', type: 'submit' }, 'Add title'),
        onSubmit: async (f) => {
          const body = { id: f.id.trim(), input: f.input.trim(), mode: f.mode }
          if (f.title.trim()) body.title = f.title.trim()
          if (list(f.category).length) body.category = list(f.category)
          if (f.hlsTime) body.hlsTime = Number(f.hlsTime)
          return (await ui.api('POST', '/api/titles', body)).id
        },
        done: (id) => 'Title ' + id + ' added and queued',
        reset: true
      })
      el.append(h('h2', {}, 'Titles'), status, titles, logsView, h('h3', {}, 'Add a title'), add,
        h('p', { class: 'hint' }, 'Title, description and categories seed the panel record once; edit them in the panel afterwards.'))
      // A poll skipped while the page was in the background resumes when it is seen again.
      document.addEventListener('visibilitychange', () => {
        if (!document.hidden && !el.hidden && timer === null) ui.refresh()
      })
    },
    async render (el, ui) {
      clearTimeout(timer)
      try {
        const [s, r] = await Promise.all([ui.api('GET', '/api/status'), ui.api('GET', '/api/titles')])
        busy = r.titles.some((t) => t.state === 'queued' || t.state === 'ingesting')
        const n = s.titles
        const panel = s.panelKey === null ? 'not configured' : s.panelConnected ? 'connected' : 'not connected'
        ui.subtitle('panel: ' + panel)
        facts(status, [
          ['Titles', `${n.titles} (${n.ready} ready, ${n.ingesting} ingesting, ${n.queued} queued, ${n.error} error)`],
          ['Publisher', s.publisher ?? '-'],
          ['Panel', panel],
          ['Swarm connections', s.swarmConnections]
        ])
        table(titles, [
          {
            label: 'Title',
            cell: (t) => [h('strong', {}, t.id), t.title ? [h('br'), t.title] : null,
              h('div', { class: 'mono muted', title: 'input' }, t.input), h('div', { class: 'muted' }, t.mode + ', ' + t.hlsTime + ' s segments')]
          },
          { label: 'State', cell: (t) => h('span', { class: 'state state-' + t.state, title: t.readyAt ? 'ready since ' + when(t.readyAt) : undefined }, t.state) },
          { label: 'Ingest', class: 'ingest', cell: progress },
          { label: 'Duration', class: 'num', cell: (t) => duration(t.durationSec) },
          { label: 'Segments', class: 'num', cell: (t) => t.segments },
          { label: 'Size', class: 'num', cell: (t) => size(t.bytes) },
          { label: 'Peers', class: 'num', cell: (t) => t.peers },
          { label: 'Panel', cell: (t) => registration(t, s.panelKey !== null) },
          { label: 'Error', cell: (t) => (t.error ? h('span', { class: 'error' }, t.error) : '') },
          { label: '', class: 'actions', cell: (t) => actions(ui, t) }
        ], r.titles, { rowAttrs: (t) => ({ 'data-title': t.id, 'data-state': t.state }), empty: 'No titles yet: add one below.' })
        if (logsOf !== null && !r.titles.some((t) => t.id === logsOf)) closeLogs()
        if (logsOf !== null) {
          const id = logsOf
          const l = await ui.api('GET', `/api/titles/${enc(id)}/logs?lines=${LOG_LINES}`)
          if (logsOf !== id) return
          const atEnd = logs.scrollTop + logs.clientHeight >= logs.scrollHeight - 4
          logsView.hidden = false
          logsTitle.textContent = id + ' (' + l.state + (l.ingest ? ', ' + l.ingest.phase + ' ' + l.ingest.pct + '%' : '') + ')'
          logs.textContent = l.lines.length ? l.lines.join('\n') : 'No log lines yet.'
          if (atEnd) logs.scrollTop = logs.scrollHeight
        }
      } finally {
        schedule(el, ui)
      }
    }
  }
}
