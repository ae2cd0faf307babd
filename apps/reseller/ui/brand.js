// White-labelling (docs/reseller.md, BRAND_* settings): the brand name in the title, header and
// login page, the logo and favicon when set, and a body class per login style that style.css
// draws. The colours come from /branding.css (custom properties) linked by index.html.
import { h } from '/kit/shell.js'

const LOGIN_STYLES = ['glow', 'plain', 'grid', 'dots', 'stripes']
const DEFAULTS = { name: 'Arus', logo: null, favicon: null, loginBg: null, loginStyle: 'glow' }

/** GET /branding.json (public); the defaults when it cannot be read, so the UI still comes up. */
export async function loadBranding () {
  try {
    const res = await fetch('/branding.json')
    if (res.ok) return { ...DEFAULTS, ...(await res.json()) }
  } catch {
    // fall through to the defaults
  }
  return DEFAULTS
}

/** Before the shell is built: the page title, the favicon and the login style class. */
export function applyBranding (brand) {
  document.title = brand.name
  const style = LOGIN_STYLES.includes(brand.loginStyle) ? brand.loginStyle : DEFAULTS.loginStyle
  document.body.classList.add('brand', 'login-style-' + style)
  if (brand.favicon) document.querySelector('link[rel~="icon"]').href = brand.favicon
}

function logo (brand, id) {
  return h('img', { id, class: 'brand-logo', src: brand.logo, alt: brand.name })
}

/** After the shell is built: the logo in the header, the brand on the login card. */
export function decorateShell (brand) {
  const heading = document.querySelector('header h1')
  if (brand.logo) heading.prepend(logo(brand, 'header-logo'))
  const view = document.getElementById('login-view')
  view.prepend(h('div', { class: 'login-brand' }, brand.logo ? logo(brand, 'login-logo') : null, h('p', { id: 'login-brand-name' }, brand.name)))
  view.querySelector('h2').textContent = 'Sign in'
  // The principals tab is for admin tiers and supers (session.js shows it once the role is known).
  const principals = document.querySelector('#nav button[data-tab="principals"]')
  principals.dataset.roles = 'admin co-admin super'
  principals.hidden = true
}
