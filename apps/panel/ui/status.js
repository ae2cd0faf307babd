// Status tab: service facts, observability and the activity ring (GET /api/status, /api/observability).
import { facts, h, table, when } from '/kit/shell.js'

const mib = (n) => (n === null || n === undefined ? '-' : (n / 1048576).toFixed(1) + ' MiB')

export function statusTab () {
  let statusList, obsList, activity
  return {
    id: 'status',
    label: 'Status',
    setup (el) {
      statusList = h('dl', { id: 'status-list', class: 'facts' })
      obsList = h('dl', { id: 'obs-list', class: 'facts' })
      activity = h('div', { id: 'activity-table' })
      el.append(h('h2', {}, 'Status'), statusList, h('h3', {}, 'Observability'), obsList, h('h3', {}, 'Activity'), activity)
    },
    async render (_el, ui) {
      const [s, o] = await Promise.all([ui.api('GET', '/api/status'), ui.api('GET', '/api/observability')])
      ui.subtitle(s.serviceName)
      facts(statusList, [
        ['Users', s.users], ['Streams', s.streams], ['Live', s.live], ['Admins', s.admins],
        ['Panel key', s.panelKey], ['Pairing code', s.pairingCode || '-'], ['Escrow export', s.escrowExport ? 'on' : 'off']
      ])
      facts(obsList, [
        ['Uptime', o.uptimeSec + ' s'], ['RSS', mib(o.memory.rss)], ['Heap used', mib(o.memory.heapUsed)],
        ['Swarm', o.swarm.connections + ' connections, ' + o.swarm.peers + ' peers'],
        ['Data size', mib(o.dataSize)], ['Disk free', mib(o.diskFree)]
      ])
      const details = ({ at: _at, event: _event, actor: _actor, ...rest }) =>
        Object.entries(rest).map(([k, v]) => k + '=' + (Array.isArray(v) ? v.join(',') : v)).join(' ')
      table(activity, [
        { label: 'When', cell: (a) => when(a.at) },
        { label: 'Event', cell: (a) => a.event },
        { label: 'By', cell: (a) => a.actor || 'cli/panel' },
        { label: 'Details', cell: details, class: 'mono' }
      ], o.activity)
    }
  }
}
