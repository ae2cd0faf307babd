// The broadcaster dashboard: a plain client of the control API (docs/broadcaster.md) on the kit's
// shell (/kit/shell.js: login, token, errors, tabs, tables, charts). index.html loads this file
// with a classic <script>, so the shell, an ES module, comes in through import(). Everything
// from the server is rendered as text, never as HTML.
'use strict'

import('/kit/shell.js').then(({ button, chart, createShell, facts, h, table, when }) => {
  const REFRESH_MS = 3000
  const ANALYTICS_REFRESH_MS = 60_000
  const HOUR_SEC = 3600
  const enc = encodeURIComponent

  /** ON AIR / WAITING FOR PUBLISHER / RETRYING (exit N), as the spec names the badges. */
  function badge (c) {
    const span = (text, cls) => h('span', { class: 'badge ' + cls }, text)
    if (!c.running) return span('STOPPED', 'stopped')
    if (c.slate.slated) return span('ON AIR (SLATE)', 'slated')
    if (c.state === 'up') return span('ON AIR', 'on-air')
    if (c.state === 'waiting-input') return span('WAITING FOR PUBLISHER', 'waiting')
    if (c.state === 'backoff') {
      const exit = c.watchdog.lastExit
      const code = exit ? (exit.code ?? exit.signal ?? '?') : '?'
      return span(`RETRYING (exit ${code})`, 'retrying')
    }
    return span(c.state.toUpperCase(), 'starting')
  }

  function describeInput (c) {
    const i = c.input
    const what = i.kind === 'pull' ? i.url : i.kind === 'file' ? i.path : i.kind
    return c.ingest ? `${what} → ${c.ingest.pushUrl}` : what
  }

  function panelLink (status) {
    const p = status.panel
    return p.configured ? (p.connected ? 'panel: connected' : 'panel: not connected') : 'panel: not configured'
  }

  function channelsTab () {
    let channels, logsView, logsTitle, logs
    let logsOf = null

    const actions = (ui, c) => {
      const path = `/api/channels/${enc(c.id)}`
      const post = (what) => ui.action(() => ui.api('POST', `${path}/${what}`))
      return [
        c.running ? button('Stop', post('stop')) : button('Start', post('start')),
        c.running && c.buffer === 'disk' ? button('Rotate', post('rotate')) : null,
        button('Logs', ui.action(async () => { logsOf = c.id })),
        c.running ? null : button('Delete', ui.action(async () => { if (confirm(`Delete ${c.id}?`)) await ui.api('DELETE', path) }), 'danger')
      ]
    }

    return {
      id: 'channels',
      label: 'Channels',
      refreshMs: REFRESH_MS,
      setup (el, ui) {
        channels = h('div', { id: 'channels' })
        logsTitle = h('span', { id: 'logs-id' })
        logs = h('pre', { id: 'logs' })
        logsView = h('section', { id: 'logs-view', hidden: true },
          h('h3', {}, 'Logs of ', logsTitle, ' ', button('Close', () => { logsOf = null; logsView.hidden = true })), logs)
        el.append(h('h2', {}, 'Channels'), channels, logsView, h('h3', {}, 'Add a channel'),
          ui.form({
            id: 'add-form',
            fields: [
              { label: 'Id', name: 'id', required: true, pattern: '[A-Za-z0-9_.\\-]{1,64}' },
              { label: 'Title', name: 'title' },
              { label: 'Input', name: 'input', required: true, placeholder: 'test, rtmp, srt, udp, a URL or a file path' },
              { label: 'Buffer', name: 'buffer', options: [{ value: '', label: 'default' }, 'disk', 'ram'] },
              { label: 'Segment s', name: 'hlsTime', type: 'number', min: 1, max: 30 }
            ],
            submit: 'Add',
            onSubmit: async (f) => {
              const body = { id: f.id, input: f.input }
              if (f.title) body.title = f.title
              if (f.buffer) body.buffer = f.buffer
              if (f.hlsTime) body.hlsTime = Number(f.hlsTime)
              await ui.api('POST', '/api/channels', body)
              return f.id
            },
            done: (id) => `Channel ${id} added`,
            reset: true
          }))
      },
      async render (_el, ui) {
        const [status, list] = await Promise.all([ui.api('GET', '/api/status'), ui.api('GET', '/api/channels')])
        ui.subtitle(panelLink(status))
        const configured = status.panel.configured
        const registration = (c) => !configured ? '—' : c.registered ? 'registered' : (c.registerError ?? (c.running ? 'pending' : '—'))
        table(channels, [
          { label: 'Channel', cell: (c) => [h('strong', {}, c.id), h('br'), h('span', { class: 'muted' }, c.title)] },
          { label: 'Status', cell: badge },
          { label: 'Input', cell: describeInput },
          { label: 'Peers', cell: (c) => c.peers },
          { label: 'Panel', cell: (c) => h('span', { class: c.registerError ? 'error' : '' }, registration(c)) },
          { label: '', class: 'actions', cell: (c) => actions(ui, c) }
        ], list.channels, { rowAttrs: (c) => ({ 'data-channel': c.id }), empty: 'No channels yet.' })
        if (logsOf) {
          const r = await ui.api('GET', `/api/channels/${enc(logsOf)}/logs?lines=400`)
          logsView.hidden = false
          logsTitle.textContent = `${logsOf} (${r.state}, ${r.restarts} restarts)`
          logs.textContent = r.lines.map((l) => `${new Date(l.t).toLocaleTimeString()}  ${l.line}`).join('\n')
        }
      }
    }
  }

  function incidentsTab () {
    let summary, incidents
    return {
      id: 'incidents',
      label: 'Incidents',
      refreshMs: REFRESH_MS,
      setup (el) {
        summary = h('p', { class: 'hint' })
        incidents = h('div', { id: 'incidents' })
        el.append(h('h2', {}, 'Incidents'), summary, incidents)
      },
      async render (_el, ui) {
        const r = await ui.api('GET', '/api/incidents?limit=50')
        summary.textContent = `${r.total} kept, ${r.open} open`
        const detail = (i) => i.kind === 'slate-retry' ? (i.ok ? 'healthy' : (i.detail ?? 'failed')) : (i.detail ?? '')
        table(incidents, [
          { label: 'When', cell: (i) => when(i.startedAt) + (i.endedAt === null ? ' (open)' : '') },
          { label: 'Kind', cell: (i) => i.kind },
          { label: 'Channel', cell: (i) => i.channel ?? (i.channels ?? []).join(', ') },
          { label: 'Source', cell: (i) => i.source ?? '' },
          { label: 'Count', cell: (i) => i.count },
          { label: 'Detail', cell: detail }
        ], r.incidents, { empty: 'No incidents.' })
      }
    }
  }

  /**
   * GET /api/analytics → one x per sampled UTC hour (epoch seconds) and, per channel, its mean
   * peers and egress MiB in that hour (null where the channel has no sample: a gap).
   */
  function hourlySeries (view) {
    const hours = []
    for (const day of view.days) {
      const midnight = Date.parse(day.date + 'T00:00:00Z') / 1000
      for (const [hour, bucket] of Object.entries(day.hours)) hours.push({ t: midnight + Number(hour) * HOUR_SEC, bucket })
    }
    hours.sort((a, b) => a.t - b.t)
    const ids = [...new Set(hours.flatMap((x) => Object.keys(x.bucket.channels)))].sort()
    const column = (pick) => ids.map((id) => hours.map((x) => (x.bucket.channels[id] ? pick(x.bucket.channels[id]) : null)))
    return {
      xs: hours.map((x) => x.t),
      ids,
      peers: column((c) => Math.round(c.peers.mean * 10) / 10),
      egressMiB: column((c) => Math.round(c.egressBytes / 10485.76) / 100),
      incidents: hours.reduce((n, x) => n + x.bucket.incidents, 0)
    }
  }

  function analyticsTab () {
    let days, about, peersChart, egressChart
    return {
      id: 'analytics',
      label: 'Analytics',
      refreshMs: ANALYTICS_REFRESH_MS,
      setup (el, ui) {
        days = h('select', { id: 'analytics-days', onchange: () => ui.refresh() },
          [1, 7, 30].map((n) => h('option', { value: n, selected: n === 7 }, n === 1 ? 'last day' : `last ${n} days`)))
        about = h('dl', { id: 'analytics-facts', class: 'facts' })
        peersChart = h('div', { id: 'peers-chart', class: 'chart' })
        egressChart = h('div', { id: 'egress-chart', class: 'chart' })
        el.append(h('h2', {}, 'Analytics ', days), about, peersChart, egressChart,
          h('p', { class: 'hint' }, 'Hourly buckets by UTC day: stream ids and counts only, never peer keys or addresses.'))
      },
      async render (_el, ui) {
        const view = await ui.api('GET', `/api/analytics?days=${enc(days.value)}`)
        const s = hourlySeries(view)
        const now = view.current ? Object.values(view.current.channels).reduce((n, c) => n + c.peers, 0) : null
        facts(about, [
          ['Analytics', view.enabled ? `on, ${view.retentionDays} days kept` : 'off (ANALYTICS_ENABLED=0)'],
          ['Hours sampled', s.xs.length],
          ['Last sample', view.current ? `${when(view.current.at)}: ${now} peers` : '-'],
          ['Incidents', s.incidents]
        ])
        const drawn = view.enabled && s.xs.length > 0
        peersChart.hidden = !drawn
        egressChart.hidden = !drawn
        if (!drawn) return
        const series = s.ids.map((id) => ({ label: id }))
        // At least the last sampled hour in full: uPlot would stretch a single point over years.
        const xRange = [s.xs[0], s.xs[s.xs.length - 1] + HOUR_SEC]
        await chart(peersChart, { title: 'Peers (hourly mean)', yLabel: 'peers', data: [s.xs, ...s.peers], series, xRange })
        await chart(egressChart, { title: 'Egress (MiB per hour)', yLabel: 'MiB', data: [s.xs, ...s.egressMiB], series, xRange })
      }
    }
  }

  createShell({ title: 'Arus broadcaster', tabs: [channelsTab(), incidentsTab(), analyticsTab()] })
}).catch((err) => {
  document.body.textContent = `The dashboard could not load the kit shell (/kit/shell.js): ${err.message}`
})
