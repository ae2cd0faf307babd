// Admins tab: add, rotate passwords (ends that admin's sessions), remove.
import { button, h, table, when } from '/kit/shell.js'

const enc = encodeURIComponent

export function adminsTab () {
  let admins
  return {
    id: 'admins',
    label: 'Admins',
    setup (el, ui) {
      admins = h('div', { id: 'admins-table' })
      el.append(h('h2', {}, 'Admins'),
        ui.form({
          id: 'admin-add-form',
          fields: [
            { name: 'name', placeholder: 'name', required: true },
            { name: 'password', type: 'password', placeholder: 'password', autocomplete: 'new-password', required: true }
          ],
          submit: 'Add admin',
          onSubmit: (f) => ui.api('POST', '/api/admins', { name: f.name.trim(), password: f.password }),
          done: 'Admin added',
          reset: true
        }),
        admins)
    },
    async render (_el, ui) {
      const r = await ui.api('GET', '/api/admins')
      const actions = (a) => {
        const path = '/api/admins/' + enc(a.name)
        return [
          button('Rotate password', (ev) => {
            const p = prompt('New password for ' + a.name + ' (ends its sessions)')
            if (p) ui.action(() => ui.api('POST', path + '/password', { password: p }), 'Password rotated')(ev)
          }),
          button('Remove', ui.action(async () => { if (confirm('Remove admin ' + a.name + '?')) await ui.api('DELETE', path) }, 'Admin removed'), 'danger')
        ]
      }
      table(admins, [
        { label: 'Name', cell: (a) => a.name },
        { label: 'Token version', cell: (a) => a.tokenVersion },
        { label: 'Created', cell: (a) => when(a.createdAt) },
        { label: '', class: 'actions', cell: actions }
      ], r.admins)
    }
  }
}
