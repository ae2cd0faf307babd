// Users tab: create, filter and page users; a user's devices, grants, device limit and password.
import { button, h, table, when } from '/kit/shell.js'

const enc = encodeURIComponent

export function usersTab () {
  let prefix, next, users, detail
  let page = { after: null, next: null }

  async function openUser (ui, name) {
    const path = '/api/users/' + enc(name)
    const u = await ui.api('GET', path)
    const reopen = (fn, done) => ui.action(async () => { await fn(); await openUser(ui, name) }, done)
    const devices = h('div')
    table(devices, [
      { label: 'Device', cell: (d) => d.deviceId, class: 'mono' },
      { label: 'Label', cell: (d) => d.label || '-' },
      { label: 'Enrolled', cell: (d) => when(d.enrolledAt) },
      { label: '', class: 'actions', cell: (d) => button('Drop', reopen(() => ui.api('DELETE', path + '/devices/' + enc(d.deviceId)), 'Device dropped')) }
    ], u.devices, { empty: 'No devices enrolled.' })
    const grants = h('div')
    table(grants, [
      { label: 'Stream', cell: (g) => g },
      { label: '', class: 'actions', cell: (g) => button('Remove', reopen(() => ui.api('DELETE', path + '/grants/' + enc(g)), 'Grant removed')) }
    ], u.grants, { empty: 'No grants.' })
    const active = u.status === 'active'
    detail.replaceChildren(
      h('h3', {}, 'User ', u.username),
      h('p', {}, 'Status ', u.status, ' · token version ', u.tokenVersion, ' · public key ', h('span', { class: 'mono' }, u.pub)),
      h('div', { class: 'inline' },
        button(active ? 'Disable' : 'Enable', reopen(() => ui.api('POST', path + '/status', { status: active ? 'disabled' : 'active' }), 'Status changed')),
        button('Log out everywhere', reopen(() => ui.api('POST', path + '/logout-all'), 'Sessions ended')),
        button('Delete user', ui.action(async () => {
          if (!confirm('Delete user ' + name + '?')) return
          await ui.api('DELETE', path)
          detail.hidden = true
        }, 'User deleted'), 'danger')),
      h('h4', {}, 'Devices'), devices,
      h('h4', {}, 'Grants'), grants,
      ui.form({
        fields: [{ name: 'streamId', placeholder: 'stream id', required: true }],
        submit: 'Grant',
        onSubmit: async (v) => { await ui.api('POST', path + '/grants', { streamId: v.streamId.trim() }); await openUser(ui, name) },
        done: 'Granted'
      }),
      ui.form({
        fields: [{ label: 'Max devices', name: 'maxDevices', type: 'number', min: 1, max: 100, value: u.maxDevices }],
        submit: 'Set',
        onSubmit: async (v) => { await ui.api('POST', path + '/max-devices', { maxDevices: Number(v.maxDevices) }); await openUser(ui, name) },
        done: 'Device limit set'
      }),
      ui.form({
        fields: [{ name: 'password', type: 'password', placeholder: 'new password', autocomplete: 'new-password', required: true }],
        submit: 'Rotate password',
        onSubmit: async (v) => { await ui.api('POST', path + '/password', { password: v.password }); await openUser(ui, name) },
        done: 'Password rotated; grants re-sealed'
      }))
    detail.hidden = false
  }

  return {
    id: 'users',
    label: 'Users',
    setup (el, ui) {
      prefix = h('input', { id: 'user-prefix', name: 'prefix', placeholder: 'username prefix' })
      next = h('button', { type: 'button', id: 'user-next', hidden: true, onclick: ui.action(async () => { page = { after: page.next, next: null } }) }, 'Next page')
      users = h('div', { id: 'users-table' })
      detail = h('div', { id: 'user-detail', class: 'detail', hidden: true })
      el.append(h('h2', {}, 'Users'),
        ui.form({
          id: 'user-create-form',
          fields: [
            { id: 'user-create-name', name: 'username', placeholder: 'username', required: true },
            { id: 'user-create-password', name: 'password', type: 'password', placeholder: 'password', autocomplete: 'new-password', required: true }
          ],
          submit: h('button', { id: 'user-create-submit', type: 'submit' }, 'Create user'),
          onSubmit: async (v) => { await ui.api('POST', '/api/users', { username: v.username.trim(), password: v.password }); return v.username.trim() },
          done: (u) => 'User ' + u + ' created',
          reset: true
        }),
        ui.form({
          id: 'user-filter-form',
          fields: [prefix],
          submit: 'Filter',
          onSubmit: async () => { page = { after: null, next: null } }
        }),
        next, users, detail)
    },
    async render (_el, ui) {
      const q = new URLSearchParams({ limit: '50' })
      if (prefix.value.trim()) q.set('prefix', prefix.value.trim())
      if (page.after) q.set('after', page.after)
      const r = await ui.api('GET', '/api/users?' + q)
      page.next = r.next
      next.hidden = !r.next
      table(users, [
        { label: 'User', cell: (u) => u.username },
        { label: 'Status', cell: (u) => u.status },
        { label: 'Devices', cell: (u) => u.devices.length },
        { label: 'Grants', cell: (u) => u.grants.join(', ') || '-' },
        { label: 'Max devices', cell: (u) => u.maxDevices },
        { label: '', class: 'actions', cell: (u) => button('Open', () => openUser(ui, u.username).catch(ui.report)) }
      ], r.users, { rowAttrs: (u) => ({ 'data-user': u.username }) })
    }
  }
}
