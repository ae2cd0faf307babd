// Categories tab: rename, merge, order and hide rails (membership stays on the channels).
import { button, h, list, table } from '/kit/shell.js'

const enc = encodeURIComponent

export function categoriesTab () {
  let categories
  /** Asks for a value with prompt() and PATCHes the category with `toBody(answer)`; cancel does nothing. */
  const ask = (ui, path, question, initial, toBody, done) => (ev) => {
    const answer = prompt(question, initial)
    if (answer !== null) ui.action(() => ui.api('PATCH', path, toBody(answer.trim())), done)(ev)
  }
  return {
    id: 'categories',
    label: 'Categories',
    setup (el, ui) {
      categories = h('div', { id: 'categories-table' })
      el.append(h('h2', {}, 'Categories'),
        h('p', { class: 'hint' }, 'Membership stays on the channels; here you rename, merge, order and hide rails.'),
        categories,
        ui.form({
          id: 'category-order-form',
          fields: [{ id: 'category-order', name: 'order', placeholder: 'slugs in rail order, comma-separated', size: 50 }],
          submit: 'Set rail order',
          onSubmit: (f) => ui.api('PATCH', '/api/categories', { order: list(f.order) }),
          done: 'Rails ordered'
        }))
    },
    async render (_el, ui) {
      const r = await ui.api('GET', '/api/categories')
      const actions = (c) => {
        const path = '/api/categories/' + enc(c.slug)
        return [
          button('Rename', ask(ui, path, 'Label for ' + c.slug + ' (empty clears)', c.renamed || '', (l) => ({ label: l || null }), 'Renamed')),
          button('Merge', ask(ui, path, 'Merge ' + c.slug + ' into which category? (empty clears)', c.mergedInto || '', (t) => ({ mergedInto: t || null }), 'Merge saved')),
          button('Order', ask(ui, path, 'Rail order 0-9999 (empty clears)', c.order === null ? '' : c.order, (o) => ({ order: o === '' ? null : Number(o) }), 'Order saved')),
          button(c.hidden ? 'Show' : 'Hide', ui.action(() => ui.api('PATCH', path, { hidden: !c.hidden }), c.hidden ? 'Shown' : 'Hidden')),
          button('Reset', ui.action(() => ui.api('DELETE', path), 'Presentation reset')),
          button('Remove from channels', ui.action(async () => { if (confirm('Remove ' + c.slug + ' from every channel?')) await ui.api('DELETE', path + '?strip=true') }, 'Category removed'), 'danger')
        ]
      }
      table(categories, [
        { label: 'Order', cell: (c) => (c.order === null ? '-' : c.order) },
        { label: 'Slug', cell: (c) => c.slug },
        { label: 'Label', cell: (c) => c.label + (c.renamed ? ' (renamed)' : '') },
        { label: 'Channels', cell: (c) => c.streams },
        { label: 'Rail', cell: (c) => (c.rail === c.slug ? '-' : 'shown in ' + c.rail) },
        { label: 'Hidden', cell: (c) => (c.hidden ? 'yes' : 'no') },
        { label: '', class: 'actions', cell: actions }
      ], r.categories, { rowAttrs: (c) => ({ 'data-category': c.slug }) })
    }
  }
}
