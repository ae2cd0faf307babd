// The Arus panel dashboard: a plain client of the admin HTTP API (docs/panel-api.md) on the
// kit's shell (/kit/shell.js: login, token, errors, tabs, tables). One module per tab. No
// framework, no CDN; everything from the server is rendered as text, never as HTML.
import { createShell } from '/kit/shell.js'
import { adminsTab } from './admins.js'
import { alertsTab } from './alerts.js'
import { analyticsTab } from './analytics.js'
import { categoriesTab } from './categories.js'
import { publishersTab } from './publishers.js'
import { reportsTab } from './reports.js'
import { statusTab } from './status.js'
import { streamsTab } from './streams.js'
import { usersTab } from './users.js'

createShell({
  title: 'Arus panel',
  tabs: [statusTab(), usersTab(), streamsTab(), categoriesTab(), adminsTab(), publishersTab(), reportsTab(), alertsTab(), analyticsTab()]
})
