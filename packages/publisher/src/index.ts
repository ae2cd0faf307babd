/**
 * @packageDocumentation
 * `@arus/publisher` — the publisher side of the panel RPC: {@link createPanelLink} joins the
 * panel topic, speaks only to the panel's key, and keeps each stream's register current
 * (re-sent on every new panel connection and every heartbeat; a rejection kept verbatim).
 * Used by the broadcaster (live channels) and the VOD library (titles).
 */
export { createPanelLink } from './panel-link.js'
export type { LiveRegistration, PanelLink, PanelLinkInit, Registration, RegistrationStatus, VodRegistration } from './panel-link.js'
