// Analytics tab: aggregate counts per UTC day and hour (GET /api/analytics; spec 1 "Analytics"):
// logins, sessions, online apps and unique viewers. Counts only, never an identity.
import { chart, facts, h } from '/kit/shell.js'

const HOUR_SEC = 3600
const DAY_SEC = 86_400
const REFRESH_MS = 60_000
const DAY_CHOICES = [7, 14, 30]

/** YYYY-MM-DD (UTC) → epoch seconds of its midnight. */
const midnight = (date) => Date.parse(date + 'T00:00:00Z') / 1000

/**
 * The selected days on an hourly grid from the first day's midnight to the current hour, and
 * one x per day; an hour or day without data (the panel was down) is null, a gap in the chart.
 */
function series (view, n) {
  const end = midnight(view.current.date) + view.current.hour * HOUR_SEC
  const first = midnight(view.current.date) - (n - 1) * DAY_SEC
  const hours = new Map()
  const days = new Map()
  for (const d of view.days) {
    days.set(midnight(d.date), d.day.uniqueViewers)
    for (const [hour, v] of Object.entries(d.hours)) hours.set(midnight(d.date) + Number(hour) * HOUR_SEC, v)
  }
  const xs = []
  for (let t = first; t <= end; t += HOUR_SEC) xs.push(t)
  const pick = (fn) => xs.map((t) => (hours.has(t) ? fn(hours.get(t)) : null))
  const dayXs = []
  for (let t = first; t <= end; t += DAY_SEC) dayXs.push(t)
  const sum = (fn) => [...hours.entries()].filter(([t]) => t >= first).reduce((s, [, v]) => s + fn(v), 0)
  return {
    xs,
    range: [first, end + HOUR_SEC],
    ok: pick((v) => v.logins.ok),
    failed: pick((v) => v.logins.failed),
    sessions: pick((v) => v.sessions),
    onlineMin: pick((v) => v.onlineApps.min),
    onlineMean: pick((v) => v.onlineApps.mean),
    onlineMax: pick((v) => v.onlineApps.max),
    dayXs,
    viewers: dayXs.map((t) => (days.has(t) ? days.get(t) : null)),
    totals: { ok: sum((v) => v.logins.ok), failed: sum((v) => v.logins.failed), sessions: sum((v) => v.sessions) }
  }
}

const orDash = (x) => (x === null || x === undefined ? '-' : x)

export function analyticsTab () {
  let days, disabled, about, charts, logins, online, viewers
  return {
    id: 'analytics',
    label: 'Analytics',
    refreshMs: REFRESH_MS,
    setup (el, ui) {
      days = h('select', { id: 'analytics-days', name: 'days', onchange: () => ui.refresh() },
        DAY_CHOICES.map((n) => h('option', { value: n }, `last ${n} days`)))
      disabled = h('p', { id: 'analytics-disabled', class: 'notice', hidden: true },
        'Analytics are disabled (ANALYTICS_RETENTION_DAYS=0): nothing is counted.')
      about = h('dl', { id: 'analytics-current', class: 'facts' })
      logins = h('div', { id: 'analytics-logins', class: 'chart' })
      online = h('div', { id: 'analytics-online', class: 'chart' })
      viewers = h('div', { id: 'analytics-viewers', class: 'chart' })
      charts = h('div', { id: 'analytics-charts' }, logins, online, viewers)
      el.append(h('h2', {}, 'Analytics ', days), disabled, about, charts,
        h('p', { class: 'hint' }, 'UTC days and hours. Counts only: a viewer is counted through a salted hash kept for one day, never by name.'))
    },
    async render (_el, ui) {
      const view = await ui.api('GET', '/api/analytics?days=' + encodeURIComponent(days.value))
      disabled.hidden = view.enabled
      about.hidden = !view.enabled
      charts.hidden = !view.enabled
      if (!view.enabled || view.current === null) return
      // 7 / 14 / 30, capped by the retention (a shorter retention is its own single choice).
      const choices = DAY_CHOICES.filter((n) => n <= view.retentionDays)
      if (choices.length === 0) choices.push(view.retentionDays)
      const n = Math.min(Number(days.value), choices[choices.length - 1])
      if ([...days.options].map((o) => o.value).join() !== choices.join()) {
        days.replaceChildren(...choices.map((c) => h('option', { value: c }, `last ${c} days`)))
      }
      days.value = String(choices.includes(n) ? n : choices[choices.length - 1])
      const s = series(view, Number(days.value))
      const c = view.current
      const today = view.days[view.days.length - 1]
      facts(about, [
        ['Current hour', `${c.date} ${String(c.hour).padStart(2, '0')}:00 UTC`],
        ['Logins', `${c.logins.ok} ok, ${c.logins.failed} failed`],
        ['Sessions', c.sessions],
        ['Online apps', `min ${orDash(c.onlineApps.min)}, mean ${orDash(c.onlineApps.mean)}, max ${orDash(c.onlineApps.max)} (${c.onlineApps.samples} samples)`],
        ['Catalog', c.catalog ? `${c.catalog.live} live, ${c.catalog.redirect} redirect, ${c.catalog.vod} vod` : '-'],
        ['Unique viewers today', today ? today.day.uniqueViewers : 0],
        [`Last ${days.value} days`, `${s.totals.ok} logins ok, ${s.totals.failed} failed, ${s.totals.sessions} sessions`],
        ['Retention', `${view.retentionDays} days`]
      ])
      await chart(logins, {
        title: 'Logins and sessions per hour',
        yLabel: 'per hour',
        data: [s.xs, s.ok, s.failed, s.sessions],
        series: [{ label: 'logins ok' }, { label: 'logins failed' }, { label: 'sessions' }],
        xRange: s.range
      })
      await chart(online, {
        title: 'Online apps per hour',
        yLabel: 'apps',
        data: [s.xs, s.onlineMin, s.onlineMean, s.onlineMax],
        series: [{ label: 'min' }, { label: 'mean' }, { label: 'max' }],
        xRange: s.range
      })
      await chart(viewers, {
        title: 'Unique viewers per day',
        yLabel: 'viewers',
        data: [s.dayXs, s.viewers],
        series: [{ label: 'unique viewers', fill: 'rgba(21, 101, 192, 0.15)' }],
        xRange: [s.dayXs[0], s.dayXs[s.dayXs.length - 1] + DAY_SEC],
        height: 200
      })
    }
  }
}
