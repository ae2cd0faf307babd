// The control UI: a plain client of the control API (same origin, bearer token in sessionStorage).
'use strict'

const $ = (sel) => document.querySelector(sel)
let token = sessionStorage.getItem('arus-token')
let logsOf = null

async function api (method, path, body) {
  const res = await fetch(path, {
    method,
    headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    body: body !== undefined ? JSON.stringify(body) : undefined
  })
  if (res.status === 401) { logout(); throw new Error('session ended: log in again') }
  const text = await res.text()
  const data = text ? JSON.parse(text) : null
  if (!res.ok) throw new Error(data?.error?.message ?? `HTTP ${res.status}`)
  return data
}

function text (tag, value, cls) {
  const el = document.createElement(tag)
  el.textContent = value
  if (cls) el.className = cls
  return el
}

/** ON AIR / WAITING FOR PUBLISHER / RETRYING (exit N), as the spec names the badges. */
function badge (c) {
  if (!c.running) return text('span', 'STOPPED', 'badge stopped')
  if (c.slate.slated) return text('span', 'ON AIR (SLATE)', 'badge slated')
  if (c.state === 'up') return text('span', 'ON AIR', 'badge on-air')
  if (c.state === 'waiting-input') return text('span', 'WAITING FOR PUBLISHER', 'badge waiting')
  if (c.state === 'backoff') {
    const exit = c.watchdog.lastExit
    const code = exit ? (exit.code ?? exit.signal ?? '?') : '?'
    return text('span', `RETRYING (exit ${code})`, 'badge retrying')
  }
  return text('span', c.state.toUpperCase(), 'badge starting')
}

function describeInput (c) {
  const i = c.input
  const what = i.kind === 'pull' ? i.url : i.kind === 'file' ? i.path : i.kind
  return c.ingest ? `${what} → ${c.ingest.pushUrl}` : what
}

function button (label, onClick) {
  const b = text('button', label)
  b.addEventListener('click', async () => {
    $('#action-error').textContent = ''
    try { await onClick() } catch (err) { $('#action-error').textContent = err.message }
    refresh()
  })
  return b
}

function renderChannels (list, panelConfigured) {
  const body = $('#channels tbody')
  body.replaceChildren()
  for (const c of list) {
    const tr = document.createElement('tr')
    const name = text('td', '')
    name.append(text('strong', c.id), document.createElement('br'), text('span', c.title, 'muted'))
    const status = text('td', '')
    status.append(badge(c))
    const registration = !panelConfigured ? '—' : c.registered ? 'registered' : (c.registerError ?? (c.running ? 'pending' : '—'))
    const panel = text('td', registration, c.registerError ? 'error' : '')
    const actions = text('td', '')
    if (c.running) actions.append(button('Stop', () => api('POST', `/api/channels/${c.id}/stop`)))
    else actions.append(button('Start', () => api('POST', `/api/channels/${c.id}/start`)))
    if (c.running && c.buffer === 'disk') actions.append(button('Rotate', () => api('POST', `/api/channels/${c.id}/rotate`)))
    actions.append(button('Logs', async () => { logsOf = c.id }))
    if (!c.running) actions.append(button('Delete', () => confirm(`Delete ${c.id}?`) && api('DELETE', `/api/channels/${c.id}`)))
    tr.append(name, status, text('td', describeInput(c)), text('td', String(c.peers)), panel, actions)
    body.append(tr)
  }
}

function renderIncidents (items) {
  const body = $('#incidents tbody')
  body.replaceChildren()
  for (const i of items.slice(0, 50)) {
    const tr = document.createElement('tr')
    const when = new Date(i.startedAt).toLocaleString() + (i.endedAt === null ? ' (open)' : '')
    const who = i.channel ?? (i.channels ?? []).join(', ')
    const detail = i.kind === 'slate-retry' ? (i.ok ? 'healthy' : (i.detail ?? 'failed')) : (i.detail ?? '')
    tr.append(text('td', when), text('td', i.kind), text('td', who), text('td', i.source ?? ''), text('td', String(i.count)), text('td', detail))
    body.append(tr)
  }
}

async function refresh () {
  if (!token) return
  try {
    const [status, channels, incidents] = await Promise.all([api('GET', '/api/status'), api('GET', '/api/channels'), api('GET', '/api/incidents?limit=50')])
    $('#panel-status').textContent = status.panel.configured ? (status.panel.connected ? 'panel: connected' : 'panel: not connected') : 'panel: not configured'
    renderChannels(channels, status.panel.configured)
    renderIncidents(incidents.incidents)
    if (logsOf) {
      const logs = await api('GET', `/api/channels/${logsOf}/logs?lines=400`)
      $('#logs-view').hidden = false
      $('#logs-id').textContent = `${logsOf} (${logs.state}, ${logs.restarts} restarts)`
      $('#logs').textContent = logs.lines.map((l) => `${new Date(l.t).toLocaleTimeString()}  ${l.line}`).join('\n')
    }
  } catch (err) {
    $('#action-error').textContent = err.message
  }
}

function show () {
  $('#login-view').hidden = Boolean(token)
  $('#main-view').hidden = !token
  $('#logout').hidden = !token
}

function logout () {
  token = null
  sessionStorage.removeItem('arus-token')
  show()
}

$('#login-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  const f = new FormData(e.target)
  $('#login-error').textContent = ''
  try {
    const r = await api('POST', '/api/login', { username: f.get('username'), password: f.get('password') })
    token = r.token
    sessionStorage.setItem('arus-token', token)
    show()
    refresh()
  } catch (err) {
    $('#login-error').textContent = err.message
  }
})

$('#add-form').addEventListener('submit', async (e) => {
  e.preventDefault()
  const f = new FormData(e.target)
  const body = { id: f.get('id'), input: f.get('input') }
  if (f.get('title')) body.title = f.get('title')
  if (f.get('buffer')) body.buffer = f.get('buffer')
  if (f.get('hlsTime')) body.hlsTime = Number(f.get('hlsTime'))
  $('#action-error').textContent = ''
  try { await api('POST', '/api/channels', body); e.target.reset() } catch (err) { $('#action-error').textContent = err.message }
  refresh()
})

$('#logout').addEventListener('click', logout)
$('#logs-close').addEventListener('click', () => { logsOf = null; $('#logs-view').hidden = true })

show()
refresh()
setInterval(refresh, 3000)
