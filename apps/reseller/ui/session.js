// The signed-in principal (GET /api/me): its role decides which tabs and forms are shown
// (docs/reseller.md "Roles and scope"). Elements carry `data-roles="admin co-admin"`; they are
// hidden until the role is known and for every other role. The server enforces all of it.
let me = null

/** The current principal's role, or null before /api/me has answered. */
export function role () {
  return me ? me.role : null
}

/** Admin tiers mint and see everything. */
export function isAdminTier () {
  return role() === 'admin' || role() === 'co-admin'
}

/** Shows or hides every `[data-roles]` element for the current role. */
export function applyRoles () {
  for (const el of document.querySelectorAll('[data-roles]')) el.hidden = !el.dataset.roles.split(' ').includes(role())
}

/** A session starts: the previous principal's role no longer applies. */
export function forget () {
  me = null
  applyRoles()
}

/** GET /api/me: stores the role, shows name, role and balance in the header; resolves to the record. */
export async function loadMe (ui) {
  me = await ui.api('GET', '/api/me')
  ui.subtitle(me.username + ' · ' + me.role + ' · ' + me.balance + ' credits')
  applyRoles()
  return me
}
