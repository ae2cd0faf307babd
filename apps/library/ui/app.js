// The Arus library dashboard: a plain client of the control API (docs/library.md) on the kit's
// shell (/kit/shell.js: login, token, errors, tabs, tables). One module per tab. No framework,
// no CDN; everything from the server is rendered as text, never as HTML.
import { createShell } from '/kit/shell.js'
import { titlesTab } from './titles.js'

createShell({ title: 'Arus library', tabs: [titlesTab()] })
