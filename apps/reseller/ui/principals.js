// Principals tab (admin tiers and supers): the principals the caller sees as a tree by parent
// with role, balance and status, a form to create one under the caller, and a credit transfer
// (GET, POST /api/principals, POST /api/credits/transfer; docs/reseller.md "Roles and scope").
import { h } from '/kit/shell.js'
import { loadMe } from './session.js'

/** Roles each role may create (the server's rule; docs/reseller.md "Roles and scope"). */
const CREATABLE = { admin: ['co-admin', 'super', 'reseller'], 'co-admin': ['super', 'reseller'], super: ['reseller'], reseller: [] }

/** 1 → '1 account', 2 → '2 accounts'. */
function count (n, word) {
  return n + ' ' + word + (n === 1 ? '' : 's')
}

function node (p) {
  const off = p.effectiveStatus !== 'active'
  return h('div', { class: 'node' },
    h('strong', { class: 'name' }, p.username), ' ',
    h('span', { class: 'badge role-' + p.role }, p.role), ' ',
    h('span', { class: 'balance' }, p.balance + ' credits'),
    h('span', { class: 'muted' }, ' · ' + count(p.accounts, 'account') + ' · ' + count(p.children, 'sub-principal')),
    off ? [' ', h('span', { class: 'badge status-disabled' }, p.status === 'disabled' ? 'disabled' : 'disabled above')] : null)
}

/** Nested lists by parent; a principal whose parent the caller cannot see is a root of the tree. */
function tree (principals) {
  const names = new Set(principals.map((p) => p.username))
  const kids = new Map()
  for (const p of principals) {
    const key = p.parent !== null && names.has(p.parent) ? p.parent : null
    if (!kids.has(key)) kids.set(key, [])
    kids.get(key).push(p)
  }
  const branch = (key) => {
    const ps = (kids.get(key) ?? []).sort((a, b) => (a.username < b.username ? -1 : 1))
    if (ps.length === 0) return null
    return h('ul', {}, ps.map((p) => h('li', { 'data-principal': p.username, 'data-role': p.role, 'data-parent': p.parent ?? '' }, node(p), branch(p.username))))
  }
  return branch(null)
}

/** Replaces a select's options, keeping the chosen value when it is still offered. */
function options (select, values) {
  const keep = select.value
  select.replaceChildren(...values.map((v) => h('option', { value: v }, v)))
  if (values.includes(keep)) select.value = keep
}

export function principalsTab () {
  let treeEl, roleSelect, toSelect

  return {
    id: 'principals',
    label: 'Principals',
    setup (el, ui) {
      treeEl = h('div', { id: 'principals-tree', class: 'tree' })
      roleSelect = h('select', { id: 'principal-role', name: 'role', required: true })
      toSelect = h('select', { id: 'transfer-to', name: 'to', required: true })
      const create = ui.form({
        id: 'principal-create-form',
        fields: [
          { label: 'Username', id: 'principal-username', name: 'username', required: true, maxlength: 64, autocomplete: 'off' },
          { label: 'Password', id: 'principal-password', name: 'password', type: 'password', required: true, minlength: 8, autocomplete: 'new-password' },
          h('label', {}, 'Role ', roleSelect)
        ],
        submit: h('button', { id: 'principal-create-submit', type: 'submit' }, 'Create principal'),
        onSubmit: (f) => ui.api('POST', '/api/principals', { username: f.username.trim(), password: f.password, role: f.role }),
        done: (p) => p.role + ' ' + p.username + ' created',
        reset: true
      })
      const transfer = ui.form({
        id: 'transfer-form',
        fields: [
          h('label', {}, 'To ', toSelect),
          { label: 'Credits', id: 'transfer-amount', name: 'amount', type: 'number', min: 1, max: 1_000_000_000, step: 1, required: true },
          { label: 'Note', id: 'transfer-note', name: 'note', maxlength: 500 }
        ],
        submit: h('button', { id: 'transfer-submit', type: 'submit' }, 'Transfer'),
        onSubmit: (f) => {
          const body = { to: f.to, amount: Number(f.amount) }
          if (f.note.trim()) body.note = f.note.trim()
          return ui.api('POST', '/api/credits/transfer', body)
        },
        done: (r) => 'Transferred ' + r.line.amount + ' credits to ' + r.line.principal,
        reset: true
      })
      el.append(h('h2', {}, 'Principals'), treeEl,
        h('h3', {}, 'Create a principal'), create,
        h('h3', {}, 'Transfer credits'), transfer)
    },
    async render (_el, ui) {
      const [me, r] = await Promise.all([loadMe(ui), ui.api('GET', '/api/principals')])
      treeEl.replaceChildren(tree(r.principals) ?? h('p', { class: 'muted' }, 'No principals.'))
      options(roleSelect, CREATABLE[me.role] ?? [])
      options(toSelect, r.principals.map((p) => p.username).filter((n) => n !== me.username).sort())
    }
  }
}
