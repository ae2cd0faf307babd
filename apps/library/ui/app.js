// The Arus library dashboard: a plain client of the control API (docs/library.md) on the kit's
// shell (/kit/shell.js). Titles tab placeholder until the full UI lands.
import { createShell } from '/kit/shell.js'

createShell({ title: 'Arus library', tabs: [] })
