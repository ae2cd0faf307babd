// The reseller UI: a plain client of the reseller API (docs/reseller.md) on the kit's shell
// (/kit/shell.js: login, token, errors, tabs, tables), white-labelled from /branding.json and
// /branding.css. One module per tab. No framework, no CDN; everything from the server is
// rendered as text, never as HTML.
import { createShell } from '/kit/shell.js'
import { accountsTab } from './accounts.js'
import { applyBranding, decorateShell, loadBranding } from './brand.js'
import { ledgerTab } from './ledger.js'
import { principalsTab } from './principals.js'
import { forget } from './session.js'

const brand = await loadBranding()
applyBranding(brand)
const tabs = [accountsTab(), ledgerTab(), principalsTab()]
createShell({
  title: brand.name,
  tabs,
  // A new session may be another principal: hide role-bound parts until its /api/me answers.
  onLogin: () => forget()
})
decorateShell(brand)
// The shell's own handler logs out first; then searches and filters are cleared for whoever comes next.
document.querySelector('#nav button.logout').addEventListener('click', () => {
  for (const t of tabs) t.reset?.()
})
