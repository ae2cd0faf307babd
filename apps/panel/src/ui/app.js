// The Arus panel dashboard: a plain client of the admin HTTP API (docs/panel-api.md).
// No framework, no CDN. Everything from the server is rendered with textContent, never as HTML.
'use strict';

(function () {
  const TOKEN_KEY = 'arus-admin-token'
  const $ = (sel) => document.querySelector(sel)
  let token = sessionStorage.getItem(TOKEN_KEY)
  let currentTab = 'status'
  let userPage = { after: null, next: null }
  const artUrls = []

  // ---- DOM helpers ---------------------------------------------------------

  /** h('td', { class: 'x', onclick: fn }, 'text', childNode, ...) */
  function h (tag, attrs, ...children) {
    const el = document.createElement(tag)
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v === undefined || v === null || v === false) continue
      if (k.startsWith('on')) el.addEventListener(k.slice(2), v)
      else if (k === 'class') el.className = v
      else el.setAttribute(k, v === true ? '' : String(v))
    }
    for (const c of children.flat()) {
      if (c === undefined || c === null || c === false) continue
      el.append(c instanceof Node ? c : document.createTextNode(String(c)))
    }
    return el
  }

  const button = (label, onclick, cls) => h('button', { type: 'button', class: cls, onclick }, label)
  const when = (ms) => (ms ? new Date(ms).toLocaleString() : '-')
  const list = (s) => s.split(',').map((x) => x.trim()).filter(Boolean)

  function fill (tbody, rows) {
    tbody.replaceChildren(...rows)
  }

  function say (text, isError) {
    const m = $('#message')
    m.textContent = text
    m.className = isError ? 'error' : ''
    m.hidden = false
    clearTimeout(say.timer)
    say.timer = setTimeout(() => { m.hidden = true }, isError ? 8000 : 3000)
  }

  // ---- API -------------------------------------------------------------------

  async function api (method, path, body, opts) {
    const headers = {}
    if (token) headers.authorization = 'Bearer ' + token
    let payload
    if (opts && opts.raw) {
      headers['content-type'] = opts.type
      payload = body
    } else if (body !== undefined) {
      headers['content-type'] = 'application/json'
      payload = JSON.stringify(body)
    }
    const res = await fetch(path, { method, headers, body: payload })
    if (res.status === 401 && path !== '/api/login') {
      logout('Your session ended; log in again.')
      throw new Error('session ended')
    }
    if (res.status === 204) return null
    if (opts && opts.blob) {
      if (!res.ok) throw new Error('HTTP ' + res.status)
      return res.blob()
    }
    const data = await res.json().catch(() => null)
    if (!res.ok) {
      const err = (data && data.error) || { code: 'HTTP_' + res.status, message: res.statusText }
      const wait = data && data.retryAfter ? ' (retry in ' + data.retryAfter + ' s)' : ''
      throw new Error(err.code + ': ' + err.message + wait)
    }
    return data
  }

  /** Runs an action, reports its error, refreshes the current tab on success. */
  function act (fn, done) {
    return async (ev) => {
      if (ev && ev.preventDefault) ev.preventDefault()
      try {
        const r = await fn(ev)
        if (done) say(typeof done === 'function' ? done(r) : done)
        await show(currentTab)
      } catch (e) {
        if (e.message !== 'session ended') say(e.message, true)
      }
    }
  }

  // ---- session ---------------------------------------------------------------

  function logout (why) {
    token = null
    sessionStorage.removeItem(TOKEN_KEY)
    $('#nav').hidden = true
    for (const t of document.querySelectorAll('.tab')) t.hidden = true
    $('#login-view').hidden = false
    if (why) say(why, true)
  }

  $('#login-form').addEventListener('submit', async (ev) => {
    ev.preventDefault()
    try {
      const r = await api('POST', '/api/login', { username: $('#login-username').value, password: $('#login-password').value })
      token = r.token
      sessionStorage.setItem(TOKEN_KEY, token)
      $('#login-password').value = ''
      enter()
    } catch (e) {
      say(e.message, true)
    }
  })

  $('#logout').addEventListener('click', () => logout())

  function enter () {
    $('#login-view').hidden = true
    $('#nav').hidden = false
    show('status')
  }

  for (const b of document.querySelectorAll('#nav [data-tab]')) b.addEventListener('click', () => show(b.dataset.tab))

  async function show (tab) {
    currentTab = tab
    for (const t of document.querySelectorAll('.tab')) t.hidden = t.id !== 'tab-' + tab
    for (const b of document.querySelectorAll('#nav [data-tab]')) b.classList.toggle('active', b.dataset.tab === tab)
    try {
      await RENDER[tab]()
    } catch (e) {
      if (e.message !== 'session ended') say(e.message, true)
    }
  }

  // ---- status ----------------------------------------------------------------

  function facts (dl, pairs) {
    dl.replaceChildren(...pairs.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]))
  }

  const mib = (n) => (n === null || n === undefined ? '-' : (n / 1048576).toFixed(1) + ' MiB')

  async function renderStatus () {
    const [s, o] = await Promise.all([api('GET', '/api/status'), api('GET', '/api/observability')])
    $('#service-name').textContent = s.serviceName
    facts($('#status-list'), [
      ['Users', s.users], ['Streams', s.streams], ['Live', s.live], ['Admins', s.admins],
      ['Panel key', s.panelKey], ['Pairing code', s.pairingCode || '-'], ['Escrow export', s.escrowExport ? 'on' : 'off']
    ])
    facts($('#obs-list'), [
      ['Uptime', o.uptimeSec + ' s'], ['RSS', mib(o.memory.rss)], ['Heap used', mib(o.memory.heapUsed)],
      ['Swarm', o.swarm.connections + ' connections, ' + o.swarm.peers + ' peers'],
      ['Data size', mib(o.dataSize)], ['Disk free', mib(o.diskFree)]
    ])
    fill($('#activity-table tbody'), o.activity.map((a) => {
      const { at, event, actor, ...rest } = a
      return h('tr', {}, h('td', {}, when(at)), h('td', {}, event), h('td', {}, actor || 'cli/panel'),
        h('td', { class: 'mono' }, Object.entries(rest).map(([k, v]) => k + '=' + (Array.isArray(v) ? v.join(',') : v)).join(' ')))
    }))
  }

  // ---- users -----------------------------------------------------------------

  $('#user-create-form').addEventListener('submit', act(async () => {
    const username = $('#user-create-name').value.trim()
    await api('POST', '/api/users', { username, password: $('#user-create-password').value })
    $('#user-create-name').value = ''
    $('#user-create-password').value = ''
    return username
  }, (u) => 'User ' + u + ' created'))

  $('#user-filter-form').addEventListener('submit', act(async () => { userPage = { after: null, next: null } }))
  $('#user-next').addEventListener('click', act(async () => { userPage = { after: userPage.next, next: null } }))

  async function renderUsers () {
    const q = new URLSearchParams({ limit: '50' })
    const prefix = $('#user-prefix').value.trim()
    if (prefix) q.set('prefix', prefix)
    if (userPage.after) q.set('after', userPage.after)
    const page = await api('GET', '/api/users?' + q)
    userPage.next = page.next
    $('#user-next').hidden = !page.next
    fill($('#users-table tbody'), page.users.map((u) => h('tr', { 'data-user': u.username },
      h('td', {}, u.username), h('td', {}, u.status), h('td', {}, u.devices.length),
      h('td', {}, u.grants.join(', ') || '-'), h('td', {}, u.maxDevices),
      h('td', { class: 'actions' }, button('Open', () => openUser(u.username)))
    )))
  }

  async function openUser (name) {
    const box = $('#user-detail')
    const u = await api('GET', '/api/users/' + encodeURIComponent(name))
    const path = '/api/users/' + encodeURIComponent(name)
    const refresh = () => openUser(name).catch((e) => say(e.message, true))
    const run = (fn, done) => act(async () => { await fn(); refresh() }, done)
    const grantInput = h('input', { placeholder: 'stream id' })
    const maxInput = h('input', { type: 'number', min: 1, max: 100, value: u.maxDevices })
    const pwInput = h('input', { type: 'password', placeholder: 'new password', autocomplete: 'new-password' })
    box.replaceChildren(
      h('h3', {}, 'User ', u.username),
      h('p', {}, 'Status ', u.status, ' · token version ', u.tokenVersion, ' · public key ', h('span', { class: 'mono' }, u.pub)),
      h('div', { class: 'inline' },
        button(u.status === 'active' ? 'Disable' : 'Enable', run(() => api('POST', path + '/status', { status: u.status === 'active' ? 'disabled' : 'active' }), 'Status changed')),
        button('Log out everywhere', run(() => api('POST', path + '/logout-all'), 'Sessions ended')),
        button('Delete user', act(async () => {
          if (!confirm('Delete user ' + name + '?')) return
          await api('DELETE', path)
          box.hidden = true
        }, 'User deleted'), 'danger')),
      h('h4', {}, 'Devices'),
      u.devices.length === 0 ? h('p', {}, 'No devices enrolled.') : h('table', {}, h('tbody', {}, u.devices.map((d) => h('tr', {},
        h('td', { class: 'mono' }, d.deviceId), h('td', {}, d.label || '-'), h('td', {}, 'enrolled ' + when(d.enrolledAt)),
        h('td', { class: 'actions' }, button('Drop', run(() => api('DELETE', path + '/devices/' + encodeURIComponent(d.deviceId)), 'Device dropped'))))))),
      h('h4', {}, 'Grants'),
      h('table', {}, h('tbody', {}, u.grants.map((g) => h('tr', {}, h('td', {}, g),
        h('td', { class: 'actions' }, button('Remove', run(() => api('DELETE', path + '/grants/' + encodeURIComponent(g)), 'Grant removed'))))))),
      h('form', { class: 'inline', onsubmit: run(() => api('POST', path + '/grants', { streamId: grantInput.value.trim() }), 'Granted') },
        grantInput, h('button', { type: 'submit' }, 'Grant')),
      h('form', { class: 'inline', onsubmit: run(() => api('POST', path + '/max-devices', { maxDevices: Number(maxInput.value) }), 'Device limit set') },
        h('label', {}, 'Max devices ', maxInput), h('button', { type: 'submit' }, 'Set')),
      h('form', { class: 'inline', onsubmit: run(() => api('POST', path + '/password', { password: pwInput.value }), 'Password rotated; grants re-sealed') },
        pwInput, h('button', { type: 'submit' }, 'Rotate password'))
    )
    box.hidden = false
  }

  // ---- streams ---------------------------------------------------------------

  $('#stream-add-form').addEventListener('submit', act(async () => {
    const body = { id: $('#stream-add-id').value.trim() }
    const title = $('#stream-add-title').value.trim()
    const cats = list($('#stream-add-category').value)
    const url = $('#stream-add-url').value.trim()
    if (title) body.title = title
    if (cats.length) body.category = cats
    if (url) body.url = url
    const r = await api('POST', '/api/streams', body)
    const key = $('#stream-key')
    key.textContent = 'Stream key of ' + r.stream.id + ' (secret, shown once): ' + r.key
    key.hidden = false
    for (const id of ['#stream-add-id', '#stream-add-title', '#stream-add-category', '#stream-add-url']) $(id).value = ''
    return r.stream.id
  }, (id) => 'Stream ' + id + ' added'))

  /** Art preview: drive art is fetched with the token (img tags cannot send it); https art is shown directly. */
  function artImg (s, kind) {
    const ref = s[kind]
    if (!ref) return h('span', {}, '-')
    const img = h('img', { class: 'thumb', alt: kind })
    if (ref.startsWith('https://')) img.src = ref
    else {
      api('GET', '/api/assets/' + encodeURIComponent(s.id) + '/' + kind, undefined, { blob: true })
        .then((b) => { const u = URL.createObjectURL(b); artUrls.push(u); img.src = u })
        .catch(() => {})
    }
    return img
  }

  async function renderStreams () {
    while (artUrls.length) URL.revokeObjectURL(artUrls.pop())
    const { streams } = await api('GET', '/api/streams')
    fill($('#streams-table tbody'), streams.map((s) => h('tr', { 'data-stream': s.id },
      h('td', {}, artImg(s, 'poster')), h('td', {}, s.id), h('td', {}, s.title), h('td', {}, s.category.join(', ') || '-'),
      h('td', {}, s.type === 'vod' ? s.status : s.status + (s.isLive ? ' (live)' : '')),
      h('td', { class: 'mono' }, s.redirect ? 'redirect ' + s.url : s.feedKey ? 'feed ' + s.feedKey.slice(0, 16) + '…' : 'no feed'),
      h('td', { class: 'mono' }, s.epgUrl ? s.epgId + ' @ ' + s.epgUrl : '-'),
      h('td', {}, s.order === null ? '-' : s.order),
      h('td', { class: 'actions' }, button('Edit', () => openStream(s)),
        button('Delete', act(async () => { if (confirm('Purge stream ' + s.id + '?')) await api('DELETE', '/api/streams/' + encodeURIComponent(s.id)) }, 'Stream purged'), 'danger'))
    )))
  }

  function openStream (s) {
    const box = $('#stream-detail')
    const path = '/api/streams/' + encodeURIComponent(s.id)
    const field = (name, value, attrs) => h('label', {}, name + ' ', h('input', Object.assign({ name, value: value === null || value === undefined ? '' : value }, attrs)))
    const form = h('form', { class: 'inline' },
      field('title', s.title), field('description', s.description), field('category', s.category.join(', ')),
      field('order', s.order, { placeholder: '0-9999 or empty' }),
      h('label', {}, 'featured ', h('input', { name: 'featured', type: 'checkbox', checked: s.featured })),
      s.type === 'live' ? h('label', {}, 'live ', h('input', { name: 'isLive', type: 'checkbox', checked: s.isLive })) : null,
      field('url', s.url, { placeholder: 'https redirect URL; empty clears', size: 40 }),
      field('epgUrl', s.epgUrl, { placeholder: 'https EPG feed' }), field('epgId', s.epgId),
      field('poster', s.poster), field('backdrop', s.backdrop), field('logo', s.logo),
      h('button', { type: 'submit' }, 'Save'))
    form.addEventListener('submit', act(async () => {
      const f = new FormData(form)
      const patch = {
        title: f.get('title'), description: f.get('description'), category: list(String(f.get('category'))),
        order: f.get('order') === '' ? null : Number(f.get('order')), featured: f.get('featured') !== null,
        epgUrl: f.get('epgUrl'), epgId: f.get('epgId'), poster: f.get('poster'), backdrop: f.get('backdrop'), logo: f.get('logo')
      }
      if (s.type === 'live') patch.isLive = f.get('isLive') !== null
      // Only send url when it changed: setting one also defaults isLive (spec rule 4).
      if ((f.get('url') || null) !== s.url) patch.url = f.get('url')
      if ((patch.epgUrl === '') !== (patch.epgId === '')) { patch.epgUrl = ''; patch.epgId = '' }
      await api('PATCH', path, patch)
      box.hidden = true
    }, 'Stream saved'))
    const kind = h('select', {}, ['poster', 'backdrop', 'logo'].map((k) => h('option', { value: k }, k)))
    const file = h('input', { type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif,image/svg+xml' })
    const upload = h('form', { class: 'inline' }, kind, file, h('button', { type: 'submit' }, 'Upload art'))
    upload.addEventListener('submit', act(async () => {
      const f = file.files[0]
      if (!f) throw new Error('choose an image first')
      await api('POST', path + '/art/' + kind.value, f, { raw: true, type: f.type || 'application/octet-stream' })
    }, 'Art uploaded'))
    box.replaceChildren(h('h3', {}, 'Edit ', s.id), form, h('h4', {}, 'Art'),
      h('p', {}, ['poster', 'backdrop', 'logo'].map((k) => h('span', {}, k, ' ', artImg(s, k), ' '))), upload,
      button('Close', () => { box.hidden = true }))
    box.hidden = false
  }

  // ---- categories ----------------------------------------------------------------

  async function renderCategories () {
    const { categories } = await api('GET', '/api/categories')
    fill($('#categories-table tbody'), categories.map((c) => {
      const path = '/api/categories/' + encodeURIComponent(c.slug)
      const patch = (body, done) => act(() => api('PATCH', path, body), done)
      return h('tr', { 'data-category': c.slug },
        h('td', {}, c.order === null ? '-' : c.order), h('td', {}, c.slug), h('td', {}, c.label + (c.renamed ? ' (renamed)' : '')),
        h('td', {}, c.streams), h('td', {}, c.rail === c.slug ? '-' : 'shown in ' + c.rail), h('td', {}, c.hidden ? 'yes' : 'no'),
        h('td', { class: 'actions' },
          button('Rename', (ev) => { const l = prompt('Label for ' + c.slug + ' (empty clears)', c.renamed || ''); if (l !== null) patch({ label: l.trim() || null }, 'Renamed')(ev) }),
          button('Merge', (ev) => { const t = prompt('Merge ' + c.slug + ' into which category? (empty clears)', c.mergedInto || ''); if (t !== null) patch({ mergedInto: t.trim() || null }, 'Merge saved')(ev) }),
          button('Order', (ev) => { const o = prompt('Rail order 0-9999 (empty clears)', c.order === null ? '' : c.order); if (o !== null) patch({ order: o.trim() === '' ? null : Number(o) }, 'Order saved')(ev) }),
          button(c.hidden ? 'Show' : 'Hide', patch({ hidden: !c.hidden }, c.hidden ? 'Shown' : 'Hidden')),
          button('Reset', act(() => api('DELETE', path), 'Presentation reset')),
          button('Remove from channels', act(async () => { if (confirm('Remove ' + c.slug + ' from every channel?')) await api('DELETE', path + '?strip=true') }, 'Category removed'), 'danger')))
    }))
  }

  $('#category-order-form').addEventListener('submit', act(() => api('PATCH', '/api/categories', { order: list($('#category-order').value) }), 'Rails ordered'))

  // ---- admins ------------------------------------------------------------------

  $('#admin-add-form').addEventListener('submit', act(async () => {
    await api('POST', '/api/admins', { name: $('#admin-add-name').value.trim(), password: $('#admin-add-password').value })
    $('#admin-add-name').value = ''
    $('#admin-add-password').value = ''
  }, 'Admin added'))

  async function renderAdmins () {
    const { admins } = await api('GET', '/api/admins')
    fill($('#admins-table tbody'), admins.map((a) => {
      const path = '/api/admins/' + encodeURIComponent(a.name)
      return h('tr', {}, h('td', {}, a.name), h('td', {}, a.tokenVersion), h('td', {}, when(a.createdAt)),
        h('td', { class: 'actions' },
          button('Rotate password', (ev) => { const p = prompt('New password for ' + a.name + ' (ends its sessions)'); if (p) act(() => api('POST', path + '/password', { password: p }), 'Password rotated')(ev) }),
          button('Remove', act(async () => { if (confirm('Remove admin ' + a.name + '?')) await api('DELETE', path) }, 'Admin removed'), 'danger')))
    }))
  }

  // ---- publishers ----------------------------------------------------------------

  $('#publisher-add-form').addEventListener('submit', act(async () => {
    const body = { name: $('#publisher-add-name').value.trim() }
    const scopes = list($('#publisher-add-scopes').value)
    if (scopes.length) body.scopes = scopes
    const p = await api('POST', '/api/publishers', body)
    const box = $('#publisher-secret')
    box.textContent = 'PUBLISHER_NAME=' + p.name + '  PUBLISHER_KEY=' + p.secretKey + '  (secret, shown once)'
    box.hidden = false
    $('#publisher-add-name').value = ''
    $('#publisher-add-scopes').value = ''
  }, 'Publisher enrolled'))

  async function renderPublishers () {
    const { publishers } = await api('GET', '/api/publishers')
    fill($('#publishers-table tbody'), publishers.map((p) => {
      const path = '/api/publishers/' + encodeURIComponent(p.name)
      return h('tr', {}, h('td', {}, p.name), h('td', {}, p.status), h('td', {}, p.scopes.join(', ') || '(none)'), h('td', { class: 'mono' }, p.publicKey),
        h('td', { class: 'actions' },
          button(p.status === 'active' ? 'Revoke' : 'Reactivate', act(() => api('POST', path + '/status', { status: p.status === 'active' ? 'revoked' : 'active' }), 'Status changed')),
          button('Scopes', (ev) => { const s = prompt('Scope globs, comma-separated', p.scopes.join(',')); if (s !== null) act(() => api('POST', path + '/scopes', { scopes: list(s) }), 'Scopes set')(ev) }),
          button('Delete', act(async () => { if (confirm('Delete publisher ' + p.name + '?')) await api('DELETE', path) }, 'Publisher deleted'), 'danger')))
    }))
  }

  const RENDER = { status: renderStatus, users: renderUsers, streams: renderStreams, categories: renderCategories, admins: renderAdmins, publishers: renderPublishers }

  if (token) enter()
})()
