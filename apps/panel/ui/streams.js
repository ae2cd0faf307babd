// Streams tab: add (the stream key is shown once), edit metadata and EPG pointers, upload art, purge.
import { button, h, list, table } from '/kit/shell.js'

const enc = encodeURIComponent

export function streamsTab () {
  let key, streams, detail
  const artUrls = []

  /** Art preview: drive art is fetched with the token (img tags cannot send it); https art is shown directly. */
  function artImg (ui, s, kind) {
    const ref = s[kind]
    if (!ref) return h('span', {}, '-')
    const img = h('img', { class: 'thumb', alt: kind })
    if (ref.startsWith('https://')) img.src = ref
    else {
      ui.api('GET', '/api/assets/' + enc(s.id) + '/' + kind, undefined, { blob: true })
        .then((b) => { const u = URL.createObjectURL(b); artUrls.push(u); img.src = u })
        .catch(() => {})
    }
    return img
  }

  function openStream (ui, s) {
    const path = '/api/streams/' + enc(s.id)
    const field = (name, value, attrs) => ({ label: name, name, value: value === null || value === undefined ? '' : value, ...attrs })
    const edit = ui.form({
      fields: [
        field('title', s.title), field('description', s.description), field('category', s.category.join(', ')),
        field('order', s.order, { placeholder: '0-9999 or empty' }),
        { label: 'featured', name: 'featured', type: 'checkbox', checked: s.featured },
        s.type === 'live' ? { label: 'live', name: 'isLive', type: 'checkbox', checked: s.isLive } : null,
        field('url', s.url, { placeholder: 'https redirect URL; empty clears', size: 40 }),
        field('epgUrl', s.epgUrl, { placeholder: 'https EPG feed' }), field('epgId', s.epgId),
        field('poster', s.poster), field('backdrop', s.backdrop), field('logo', s.logo)
      ],
      submit: 'Save',
      onSubmit: async (f) => {
        const patch = {
          title: f.title, description: f.description, category: list(f.category),
          order: f.order === '' ? null : Number(f.order), featured: f.featured,
          epgUrl: f.epgUrl, epgId: f.epgId, poster: f.poster, backdrop: f.backdrop, logo: f.logo
        }
        if (s.type === 'live') patch.isLive = f.isLive
        // Only send url when it changed: setting one also defaults isLive (spec rule 4).
        if ((f.url || null) !== s.url) patch.url = f.url
        if ((patch.epgUrl === '') !== (patch.epgId === '')) { patch.epgUrl = ''; patch.epgId = '' }
        await ui.api('PATCH', path, patch)
        detail.hidden = true
      },
      done: 'Stream saved'
    })
    const upload = ui.form({
      fields: [
        { name: 'kind', options: ['poster', 'backdrop', 'logo'] },
        { name: 'file', type: 'file', accept: 'image/png,image/jpeg,image/webp,image/gif,image/svg+xml' }
      ],
      submit: 'Upload art',
      onSubmit: async ({ kind, file }) => {
        if (!file) throw new Error('choose an image first')
        await ui.api('POST', path + '/art/' + kind, file, { type: file.type || 'application/octet-stream' })
      },
      done: 'Art uploaded'
    })
    detail.replaceChildren(h('h3', {}, 'Edit ', s.id), edit, h('h4', {}, 'Art'),
      h('p', {}, ['poster', 'backdrop', 'logo'].map((k) => h('span', {}, k, ' ', artImg(ui, s, k), ' '))), upload,
      button('Close', () => { detail.hidden = true }))
    detail.hidden = false
  }

  return {
    id: 'streams',
    label: 'Streams',
    setup (el, ui) {
      key = h('p', { id: 'stream-key', class: 'secret', hidden: true })
      streams = h('div', { id: 'streams-table' })
      detail = h('div', { id: 'stream-detail', class: 'detail', hidden: true })
      el.append(h('h2', {}, 'Streams'),
        ui.form({
          id: 'stream-add-form',
          fields: [
            { id: 'stream-add-id', name: 'id', placeholder: 'id (letters, digits, _ . -)', required: true },
            { id: 'stream-add-title', name: 'title', placeholder: 'title' },
            { id: 'stream-add-category', name: 'category', placeholder: 'categories (comma-separated)' },
            { id: 'stream-add-url', name: 'url', placeholder: 'https redirect URL (optional)' }
          ],
          submit: h('button', { id: 'stream-add-submit', type: 'submit' }, 'Add stream'),
          onSubmit: async (f) => {
            const body = { id: f.id.trim() }
            if (f.title.trim()) body.title = f.title.trim()
            if (list(f.category).length) body.category = list(f.category)
            if (f.url.trim()) body.url = f.url.trim()
            const r = await ui.api('POST', '/api/streams', body)
            key.textContent = 'Stream key of ' + r.stream.id + ' (secret, shown once): ' + r.key
            key.hidden = false
            return r.stream.id
          },
          done: (id) => 'Stream ' + id + ' added',
          reset: true
        }),
        key, streams, detail)
    },
    async render (_el, ui) {
      while (artUrls.length) URL.revokeObjectURL(artUrls.pop())
      const r = await ui.api('GET', '/api/streams')
      const source = (s) => (s.redirect ? 'redirect ' + s.url : s.feedKey ? 'feed ' + s.feedKey.slice(0, 16) + '…' : 'no feed')
      table(streams, [
        { label: 'Art', cell: (s) => artImg(ui, s, 'poster') },
        { label: 'Id', cell: (s) => s.id },
        { label: 'Title', cell: (s) => s.title },
        { label: 'Categories', cell: (s) => s.category.join(', ') || '-' },
        { label: 'Status', cell: (s) => (s.type === 'vod' ? s.status : s.status + (s.isLive ? ' (live)' : '')) },
        { label: 'Source', cell: source, class: 'mono' },
        { label: 'EPG', cell: (s) => (s.epgUrl ? s.epgId + ' @ ' + s.epgUrl : '-'), class: 'mono' },
        { label: 'Order', cell: (s) => (s.order === null ? '-' : s.order) },
        {
          label: '',
          class: 'actions',
          cell: (s) => [button('Edit', () => openStream(ui, s)),
            button('Delete', ui.action(async () => { if (confirm('Purge stream ' + s.id + '?')) await ui.api('DELETE', '/api/streams/' + enc(s.id)) }, 'Stream purged'), 'danger')]
        }
      ], r.streams, { rowAttrs: (s) => ({ 'data-stream': s.id }) })
    }
  }
}
