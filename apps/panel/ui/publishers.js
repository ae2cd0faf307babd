// Publishers tab: enroll (the key is shown once), revoke or reactivate, scopes, delete.
import { button, h, list, table } from '/kit/shell.js'

const enc = encodeURIComponent

export function publishersTab () {
  let secret, publishers
  return {
    id: 'publishers',
    label: 'Publishers',
    setup (el, ui) {
      secret = h('p', { id: 'publisher-secret', class: 'secret', hidden: true })
      publishers = h('div', { id: 'publishers-table' })
      el.append(h('h2', {}, 'Publishers'),
        ui.form({
          id: 'publisher-add-form',
          fields: [
            { name: 'name', placeholder: 'site name', required: true },
            { name: 'scopes', placeholder: 'scopes, e.g. news*,sport.* (default *)' }
          ],
          submit: 'Enroll',
          onSubmit: async (f) => {
            const body = { name: f.name.trim() }
            if (list(f.scopes).length) body.scopes = list(f.scopes)
            const p = await ui.api('POST', '/api/publishers', body)
            secret.textContent = 'PUBLISHER_NAME=' + p.name + '  PUBLISHER_KEY=' + p.secretKey + '  (secret, shown once)'
            secret.hidden = false
          },
          done: 'Publisher enrolled',
          reset: true
        }),
        secret, publishers)
    },
    async render (_el, ui) {
      const r = await ui.api('GET', '/api/publishers')
      const actions = (p) => {
        const path = '/api/publishers/' + enc(p.name)
        const active = p.status === 'active'
        return [
          button(active ? 'Revoke' : 'Reactivate', ui.action(() => ui.api('POST', path + '/status', { status: active ? 'revoked' : 'active' }), 'Status changed')),
          button('Scopes', (ev) => {
            const s = prompt('Scope globs, comma-separated', p.scopes.join(','))
            if (s !== null) ui.action(() => ui.api('POST', path + '/scopes', { scopes: list(s) }), 'Scopes set')(ev)
          }),
          button('Delete', ui.action(async () => { if (confirm('Delete publisher ' + p.name + '?')) await ui.api('DELETE', path) }, 'Publisher deleted'), 'danger')
        ]
      }
      table(publishers, [
        { label: 'Name', cell: (p) => p.name },
        { label: 'Status', cell: (p) => p.status },
        { label: 'Scopes', cell: (p) => p.scopes.join(', ') || '(none)' },
        { label: 'Public key', cell: (p) => p.publicKey, class: 'mono' },
        { label: '', class: 'actions', cell: actions }
      ], r.publishers)
    }
  }
}
