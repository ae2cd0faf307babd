import type { Alert } from './schemas.js'

/** One notification: the same message string goes to every target. */
export interface Notification { title: string; message: string; channel: string; count: string }

/**
 * The notification of an opened alert (spec 1 "Events"): the title reads
 * '<service>: problem on <channel> (<n> distinct viewers)', the message adds the per-category
 * counts and the alert id; a lower-bound count carries a leading '>='. Counts only.
 */
export function alertNotification (serviceName: string, alert: Alert): Notification {
  const channel = alert.kind === 'login' ? 'login' : alert.channel ?? '?'
  const count = `${alert.reportersLowerBound ? '>=' : ''}${alert.reporters}`
  const title = `${serviceName}: problem on ${channel} (${count} distinct viewers)`
  const tallies = Object.entries(alert.categories).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c}: ${n}`).join(', ')
  return { title, message: `${title}\n${tallies}\nalert ${alert.id}`, channel, count }
}

/** The synthetic message of test-notify. */
export function testNotification (serviceName: string): Notification {
  const title = `${serviceName}: test notification`
  return { title, message: `${title}\nThis is a test of the problem-report notifications; no alert is open.`, channel: 'test', count: '0' }
}

/** The X-Title header value: printable ASCII only (a header cannot carry control or non-Latin characters). */
export function headerSafe (s: string): string {
  return s.replace(/[^\x20-\x7e]/g, '?').slice(0, 256)
}
