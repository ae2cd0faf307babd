import { z } from 'zod'
import { Count, EpochMs, text, Version } from './schema-common.js'

// The viewer problem report. Spec: 1-panel.md "Problem report" (fields and limits),
// "Peer-to-peer RPC" (problem report row), "Authentication" 6, "Storm behavior".

/** Report categories; any other value is rejected, never coerced (spec 1 "Problem report"). */
export const REPORT_CATEGORIES = ['no-audio', 'black-screen', 'visual-artifacts', 'buffering', 'wrong-content', 'login', 'other'] as const
export type ReportCategory = (typeof REPORT_CATEGORIES)[number]

/** Breadcrumb kinds of the events ring. */
export const REPORT_EVENT_KINDS = ['error', 'status', 'fallback', 'source-changed'] as const

/** Report limits: text 300 characters, events ring 50 entries, each detail 200 UTF-8 bytes. */
export const REPORT_TEXT_MAX = 300
export const REPORT_EVENTS_MAX = 50
export const REPORT_EVENT_DETAIL_MAX_BYTES = 200
/** Largest raw report request the panel parses (the method's own cap, below the protocol's 64 KiB). */
export const MAX_REPORT_REQUEST_BYTES = 32 * 1024

const encoder = new TextEncoder()

/** One breadcrumb: what happened, when, and a short detail. */
export const ReportEvent = z.strictObject({
  kind: z.enum(REPORT_EVENT_KINDS),
  at: EpochMs,
  detail: z.string().refine((s) => encoder.encode(s).byteLength <= REPORT_EVENT_DETAIL_MAX_BYTES, `at most ${REPORT_EVENT_DETAIL_MAX_BYTES} UTF-8 bytes`)
})
export type ReportEvent = z.infer<typeof ReportEvent>

/** `report` request: the report fields plus the session token of the reporting device. */
export const ReportRequest = z.strictObject({
  v: Version,
  token: z.string().min(1).max(8192),
  category: z.enum(REPORT_CATEGORIES),
  text: text(0, REPORT_TEXT_MAX).nullable(),
  channel: text(1, 64),
  appVersion: text(0, 64),
  platform: text(0, 64),
  peers: Count.max(1_000_000),
  events: z.array(ReportEvent).max(REPORT_EVENTS_MAX)
})
export type ReportRequest = z.infer<typeof ReportRequest>

/** `report` reply: taken (stored, or acknowledged and shed), or counted into an open alert (`collapsed`). */
export const ReportReply = z.strictObject({
  v: Version,
  ok: z.literal(true),
  collapsed: z.literal(true).optional()
})
export type ReportReply = z.infer<typeof ReportReply>
