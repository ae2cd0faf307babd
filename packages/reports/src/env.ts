import { z } from 'zod'
import { env } from '@arus/service'

/**
 * The REPORTS_* environment section (spec 1 "Limits": all ten knobs validated at boot; an
 * invalid one aborts boot naming it). The webhook URL and the bot token are secrets: boot
 * errors never echo them.
 */
export const reportsEnv = {
  REPORTS_RETENTION_DAYS: env.int({ min: 0, max: 3650, default: 30 }).describe('Days a problem report is kept. 0 disables reports entirely: no files, and the report RPC answers \'unknown method\'.'),
  REPORTS_MAX_PER_WINDOW: env.int({ min: 1, max: 10_000, default: 5 }).describe('Reports one reporter may send per REPORTS_WINDOW_SECONDS; more are answered locked with retryAfter.'),
  REPORTS_WINDOW_SECONDS: env.int({ min: 1, max: 86_400, default: 600 }).describe('Window of the per-reporter throttle, in seconds.'),
  REPORTS_ALERT_COUNT: env.int({ min: 1, max: 100_000, default: 3 }).describe('Distinct reporters on one channel (or over category login, panel-wide) within REPORTS_ALERT_WINDOW_MIN that open an alert.'),
  REPORTS_ALERT_WINDOW_MIN: env.int({ min: 1, max: 10_080, default: 10 }).describe('Correlation window of alerts, in minutes.'),
  REPORTS_STORM_SAMPLE: env.int({ min: 0, max: 5000, default: 20 }).describe('Full report records stored per open alert; later reports on its channel are only counted (collapsed).'),
  REPORTS_GLOBAL_PER_MIN: env.int({ min: 1, max: 100_000, default: 120 }).describe('Reports stored per minute, panel-wide; past it reports are acknowledged, counted as shed and dropped.'),
  REPORTS_WEBHOOK_URL: env.url({ optional: true }).refine((v) => v === undefined || isDeliverable(v), 'must be an https:// URL (http:// only to a loopback address)')
    .describe('Generic JSON webhook notified once per opened alert. A secret: its path holds the credential. https (http only to loopback).'),
  REPORTS_MSGR_BOT_TOKEN: env.str({ optional: true, max: 256 }).refine((v) => v === undefined || /^[A-Za-z0-9:_-]+$/.test(v), 'must be a bot token (letters, digits, : _ -)')
    .describe('Messenger bot token; with REPORTS_MSGR_CHAT_ID, each opened alert is posted to <api base>/bot<token>/sendMessage. One without the other is ignored.'),
  REPORTS_MSGR_CHAT_ID: env.str({ optional: true, max: 128 }).refine((v) => v === undefined || /^[A-Za-z0-9@_-]+$/.test(v), 'must be a chat id (letters, digits, @ _ -)')
    .describe('Messenger chat id the bot posts to (with REPORTS_MSGR_BOT_TOKEN).'),
  REPORTS_MSGR_API_BASE: env.url({ default: 'https://api.telegram.org' }).refine(isDeliverable, 'must be an https:// URL (http:// only to a loopback address)')
    .describe('Base URL of the messenger bot API (Arus: configurable so a local relay or a test server can stand in).'),
  REPORTS_NOTIFY_RETRY_MS: env.int({ min: 0, max: 600_000, default: 10_000 }).describe('Wait before the second delivery attempt of a notification; the third waits twice as long (3 attempts over about 30 s by default).')
}

/** The parsed section, as `loadConfig` returns it. */
export type ReportsEnv = { [K in keyof typeof reportsEnv]: z.output<(typeof reportsEnv)[K]> }

/** Notification targets: https anywhere, plain http only to a loopback address. */
export function isDeliverable (url: string): boolean {
  const u = new URL(url)
  if (u.username !== '' || u.password !== '') return false
  if (u.protocol === 'https:') return true
  return u.protocol === 'http:' && ['127.0.0.1', 'localhost', '[::1]'].includes(u.hostname)
}

/** Tunables of {@link createReports}, derived once from the env. */
export interface ReportsSettings {
  /** 0 disables reports. */
  retentionDays: number
  maxPerWindow: number
  windowSeconds: number
  alertCount: number
  alertWindowMinutes: number
  stormSample: number
  globalPerMinute: number
  webhookUrl: string | null
  /** Both halves, or null (one alone is ignored). */
  messenger: { apiBase: string; botToken: string; chatId: string } | null
  /** First retry delay; the second is twice this. */
  notifyRetryMs: number
}

/** Settings from the parsed env; `ignored` names a messenger half given without the other. */
export function reportsSettings (c: ReportsEnv): { settings: ReportsSettings; ignored: string | null } {
  const token = c.REPORTS_MSGR_BOT_TOKEN
  const chat = c.REPORTS_MSGR_CHAT_ID
  const messenger = token !== undefined && chat !== undefined ? { apiBase: c.REPORTS_MSGR_API_BASE, botToken: token, chatId: chat } : null
  const ignored = messenger !== null ? null : token !== undefined ? 'REPORTS_MSGR_BOT_TOKEN' : chat !== undefined ? 'REPORTS_MSGR_CHAT_ID' : null
  return {
    settings: {
      retentionDays: c.REPORTS_RETENTION_DAYS,
      maxPerWindow: c.REPORTS_MAX_PER_WINDOW,
      windowSeconds: c.REPORTS_WINDOW_SECONDS,
      alertCount: c.REPORTS_ALERT_COUNT,
      alertWindowMinutes: c.REPORTS_ALERT_WINDOW_MIN,
      stormSample: c.REPORTS_STORM_SAMPLE,
      globalPerMinute: c.REPORTS_GLOBAL_PER_MIN,
      webhookUrl: c.REPORTS_WEBHOOK_URL ?? null,
      messenger,
      notifyRetryMs: c.REPORTS_NOTIFY_RETRY_MS
    },
    ignored
  }
}
