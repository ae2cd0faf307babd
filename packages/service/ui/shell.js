// The kit's dashboard shell, shared by every Arus daemon's dashboard (served at /kit/shell.js):
// login, the session token, API calls with visible errors, tabs, tables, forms and uPlot charts.
// A plain ES module, no build step. Server data is always rendered as text, never as HTML.

/** sessionStorage key of the admin token (each daemon is its own origin, so one key serves all). */
const TOKEN_KEY = 'arus-admin-token'
const UPLOT = '/kit/uplot/'
const PALETTE = ['#1565c0', '#c62828', '#2e7d32', '#ef6c00', '#6a1b9a', '#00838f', '#5d4037', '#ad1457']
const SAY_MS = 3000
const ERROR_MS = 8000

/** A refused API call: the server's `{ error: { code, message } }` (or `HTTP_<status>`). */
export class ApiError extends Error {
  constructor (code, message, status, retryAfter) {
    super(message)
    this.name = 'ApiError'
    this.code = code
    this.status = status
    this.retryAfter = retryAfter
  }
}

/** Thrown by `api` after a 401: the shell is already back at the login form. */
class SessionEnded extends Error {}

// ---- DOM helpers -------------------------------------------------------------

/** `h('td', { class: 'x', onclick: fn }, 'text', node, [more])`: an element; strings become text nodes. */
export function h (tag, attrs, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === undefined || v === null || v === false) continue
    if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
    else if (k === 'class') el.className = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat(Infinity)) {
    if (c === undefined || c === null || c === false) continue
    el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return el
}

/** A plain button (`cls` e.g. 'danger'). */
export function button (label, onclick, cls) {
  return h('button', { type: 'button', class: cls, onclick }, label)
}

/** Fills a `<dl>` with `[term, value]` pairs. */
export function facts (dl, pairs) {
  dl.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))
}

/**
 * Replaces `el`'s content with a table. `columns`: `[{ label, cell(row), class? }]`, where a
 * cell is text, a node or an array of them. `rowAttrs(row)` gives each `<tr>`'s attributes
 * (e.g. `{ 'data-user': row.username }`); `empty` is shown as one row when there are no rows.
 */
export function table (el, columns, rows, { rowAttrs, empty } = {}) {
  const body = rows.map((row) => h('tr', rowAttrs ? rowAttrs(row) : {}, columns.map((c) => h('td', { class: c.class }, c.cell(row)))))
  if (body.length === 0 && empty) body.push(h('tr', {}, h('td', { colspan: columns.length, class: 'empty' }, empty)))
  const t = h('table', {}, h('thead', {}, h('tr', {}, columns.map((c) => h('th', {}, c.label)))), h('tbody', {}, body))
  el.replaceChildren(t)
  return t
}

/** `'a, b,,c'` → `['a', 'b', 'c']`. */
export function list (text) {
  return String(text).split(',').map((x) => x.trim()).filter(Boolean)
}

/** Epoch ms as local date and time, '-' when absent. */
export function when (ms) {
  return ms ? new Date(ms).toLocaleString() : '-'
}

// ---- charts ----------------------------------------------------------------------

let uplot = null
const CHARTS = new WeakMap()

/** uPlot's module and stylesheet, loaded once on the first chart. */
function loadUplot () {
  if (uplot === null) {
    document.head.append(h('link', { rel: 'stylesheet', href: UPLOT + 'uPlot.min.css' }))
    uplot = import(UPLOT + 'uPlot.esm.js').then((m) => m.default)
  }
  return uplot
}

/**
 * Draws a time series chart into `el` with uPlot, replacing the chart drawn there before.
 * `data`: `[xs, ...ys]` with xs in epoch seconds and a null for a gap; `series`: one
 * `{ label, stroke?, value? }` per ys (uPlot series options); `xRange`: `[min, max]` epoch
 * seconds shown (default: the data's). Resolves to the uPlot instance.
 */
export async function chart (el, { data, series, title, yLabel, xRange, height = 240 }) {
  const UPlot = await loadUplot()
  CHARTS.get(el)?.destroy()
  const opts = {
    title,
    width: Math.max(320, el.clientWidth || 640),
    height,
    scales: { x: xRange ? { time: true, range: xRange } : { time: true } },
    axes: [{}, { label: yLabel }],
    series: [{}, ...series.map((s, i) => ({ stroke: PALETTE[i % PALETTE.length], width: 2, ...s }))]
  }
  const plot = new UPlot(opts, data, el)
  CHARTS.set(el, plot)
  return plot
}

// ---- the shell -------------------------------------------------------------------

/**
 * Builds the dashboard into `document.body`: a header with `title` and the tab bar, the
 * message area, the login form and one `<section id="tab-<id>">` per tab.
 *
 * `tabs`: `[{ id, label, setup?(el, ui), render(el, ui), refreshMs? }]`. `setup` runs once,
 * the first time a tab is shown (static parts: forms, containers); `render` runs each time it
 * is shown, after each `ui.action`, and every `refreshMs` while it is the current tab.
 * `onLogin(ui)` runs whenever a session starts (a login, or a token kept in sessionStorage).
 *
 * Returns `ui`, which tabs receive too: `api`, `action`, `form`, `say`, `report`, `subtitle`,
 * `show`, `refresh`, `logout`.
 */
export function createShell ({ title, tabs, onLogin }) {
  let token = sessionStorage.getItem(TOKEN_KEY)
  let current = null
  let timer = null
  let rendering = false
  let sayTimer = null
  const ready = new Set()

  const subtitleEl = h('span', { id: 'subtitle' })
  const tabButtons = tabs.map((t) => h('button', { type: 'button', 'data-tab': t.id, onclick: () => show(t.id) }, t.label))
  const nav = h('nav', { id: 'nav', hidden: true }, tabButtons, button('Log out', () => logout(), 'logout'))
  const message = h('p', { id: 'message', role: 'status', hidden: true })
  const username = h('input', { id: 'login-username', name: 'username', autocomplete: 'username', required: true })
  const password = h('input', { id: 'login-password', name: 'password', type: 'password', autocomplete: 'current-password', required: true })
  const loginForm = h('form', { id: 'login-form', onsubmit: login },
    h('label', {}, 'Name ', username), h('label', {}, 'Password ', password), h('button', { id: 'login-submit', type: 'submit' }, 'Log in'))
  const loginView = h('section', { id: 'login-view' }, h('h2', {}, 'Admin login'), loginForm)
  const sections = new Map(tabs.map((t) => [t.id, h('section', { id: 'tab-' + t.id, class: 'tab', hidden: true })]))
  document.body.replaceChildren(
    h('header', {}, h('h1', {}, title, ' ', subtitleEl), nav),
    message,
    h('main', {}, loginView, [...sections.values()]))

  function say (text, isError) {
    message.textContent = text
    message.className = isError ? 'error' : ''
    message.hidden = false
    clearTimeout(sayTimer)
    sayTimer = setTimeout(() => { message.hidden = true }, isError ? ERROR_MS : SAY_MS)
  }

  /** Shows an error in the message area (a session that ended has already said so). */
  function report (err) {
    if (err instanceof SessionEnded) return
    if (err instanceof ApiError) say(err.code + ': ' + err.message + (err.retryAfter ? ' (retry in ' + err.retryAfter + ' s)' : ''), true)
    else say(err && err.message ? err.message : String(err), true)
  }

  /**
   * Calls the API with the session token. `body` is sent as JSON, or as is with
   * `{ type: '<content type>' }`; `{ blob: true }` resolves to a Blob. Resolves to the JSON
   * reply (null for 204); a refusal throws an ApiError; a 401 ends the session.
   */
  async function api (method, path, body, opts = {}) {
    const headers = {}
    if (token) headers.authorization = 'Bearer ' + token
    let payload
    if (opts.type) {
      headers['content-type'] = opts.type
      payload = body
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    const res = await fetch(path, { method, headers, body: payload })
    if (res.status === 401 && path !== '/api/login') {
      logout('Your session ended; log in again.')
      throw new SessionEnded('session ended')
    }
    if (res.ok && res.status === 204) return null
    if (res.ok && opts.blob) return res.blob()
    const data = await res.json().catch(() => null)
    if (!res.ok) {
      const e = (data && data.error) || { code: 'HTTP_' + res.status, message: res.statusText }
      throw new ApiError(e.code, e.message, res.status, data && data.retryAfter)
    }
    return data
  }

  /**
   * An event handler that runs `fn(event)`, then says `done` (text, or a function of fn's
   * result) and renders the current tab again; an error is shown instead.
   */
  function action (fn, done) {
    return async (ev) => {
      if (ev && ev.preventDefault) ev.preventDefault()
      try {
        const r = await fn(ev)
        if (done) say(typeof done === 'function' ? done(r) : done)
        await refresh()
      } catch (err) {
        report(err)
      }
    }
  }

  /**
   * A form of `fields` and a submit button, submitted through `action`. A field is a node,
   * or `{ label?, name, options?, ...attributes }` (an `<input>`, or a `<select>` of `options`:
   * strings or `{ value, label }`); null fields are left out;
   * `submit` is a label or a button node. `onSubmit(values, form)` gets the named fields'
   * values (checkboxes as booleans, file inputs as their first File or null); `reset: true`
   * clears the form after a success.
   */
  function form ({ fields, submit, onSubmit, done, reset = false, id, inline = true }) {
    const el = h('form', { id, class: inline ? 'inline' : 'stacked' }, fields.filter(Boolean).map(field),
      submit instanceof Node ? submit : h('button', { type: 'submit' }, submit))
    el.addEventListener('submit', action(async () => {
      const r = await onSubmit(values(el), el)
      if (reset) el.reset()
      return r
    }, done))
    return el
  }

  function subtitle (text) {
    subtitleEl.textContent = text
  }

  async function login (ev) {
    ev.preventDefault()
    try {
      const r = await api('POST', '/api/login', { username: username.value, password: password.value })
      token = r.token
      sessionStorage.setItem(TOKEN_KEY, token)
      password.value = ''
      message.hidden = true
      enter()
    } catch (err) {
      report(err)
    }
  }

  /** Drops the token (the kit has no logout route: a token just expires) and shows the login form. */
  function logout (why) {
    token = null
    sessionStorage.removeItem(TOKEN_KEY)
    clearInterval(timer)
    current = null
    nav.hidden = true
    for (const s of sections.values()) s.hidden = true
    loginView.hidden = false
    if (why) say(why, true)
    else message.hidden = true
  }

  function enter () {
    loginView.hidden = true
    nav.hidden = false
    if (onLogin) Promise.resolve().then(() => onLogin(ui)).catch(report)
    show(tabs[0].id)
  }

  /** Makes `id` the current tab and renders it. */
  async function show (id) {
    const tab = tabs.find((t) => t.id === id)
    current = tab
    for (const [tid, s] of sections) s.hidden = tid !== id
    for (const b of tabButtons) b.classList.toggle('active', b.dataset.tab === id)
    clearInterval(timer)
    if (tab.refreshMs) timer = setInterval(() => { if (!rendering) refresh() }, tab.refreshMs)
    const el = sections.get(id)
    if (!ready.has(id)) {
      ready.add(id)
      try { tab.setup?.(el, ui) } catch (err) { report(err) }
    }
    await refresh()
  }

  /** Renders the current tab again. */
  async function refresh () {
    const tab = current
    if (!tab || !token) return
    rendering = true
    try {
      await tab.render(sections.get(tab.id), ui)
    } catch (err) {
      report(err)
    } finally {
      rendering = false
    }
  }

  const ui = { api, action, form, say, report, subtitle, show, refresh, logout }
  if (token) enter()
  else logout()
  return ui
}

function field (spec) {
  if (spec instanceof Node) return spec
  const { label, options, ...attrs } = spec
  const input = options
    ? h('select', attrs, options.map((o) => (typeof o === 'string' ? h('option', { value: o }, o) : h('option', { value: o.value }, o.label))))
    : h('input', attrs)
  return label ? h('label', {}, label + ' ', input) : input
}

function values (formEl) {
  const out = {}
  for (const c of formEl.elements) {
    if (!c.name) continue
    out[c.name] = c.type === 'checkbox' ? c.checked : c.type === 'file' ? (c.files[0] || null) : c.value
  }
  return out
}
