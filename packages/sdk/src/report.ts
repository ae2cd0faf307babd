import b4a from 'b4a'
import { RpcError, type RpcClient } from '@arus/rpc'
import { z } from 'zod'
import {
  REPORT_CATEGORIES, REPORT_COOLDOWN_MS, REPORT_EVENT_DETAIL_MAX_BYTES, REPORT_EVENTS_MAX, REPORT_METHOD, REPORT_TEXT_MAX
} from './constants.js'
import { SdkError } from './errors.js'
import type { ReportInput, ReportResult } from './index.js'

/** One breadcrumb of the rolling ring sent with reports (spec 1 "Problem report" events). */
export interface Breadcrumb { kind: 'error' | 'status'; at: number; detail: string }

const ReportInputSchema = z.strictObject({
  channel: z.string().min(1).max(64),
  category: z.enum(REPORT_CATEGORIES),
  text: z.string().nullable().optional(),
  appVersion: z.string().max(64).optional(),
  platform: z.string().max(64).optional()
})

export interface ReporterDeps {
  now(): number
  rpc(): RpcClient | null
  token(): string | null
  peers(): number
}

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/g

/**
 * Problem reports (spec 3 point 7, spec 1 "Problem report"): pseudonymous on the panel side,
 * refused client-side for 10 minutes per channel and category once the panel has answered.
 */
export class Reporter {
  private readonly ring: Breadcrumb[] = []
  private readonly cooldown = new Map<string, number>()

  constructor (private readonly deps: ReporterDeps) {}

  /** Adds a breadcrumb (detail cut to 200 UTF-8 bytes); the ring keeps the last 50. */
  note (kind: Breadcrumb['kind'], detail: string): void {
    this.ring.push({ kind, at: this.deps.now(), detail: cutBytes(detail.replace(CONTROL, ' '), REPORT_EVENT_DETAIL_MAX_BYTES) })
    if (this.ring.length > REPORT_EVENTS_MAX) this.ring.splice(0, this.ring.length - REPORT_EVENTS_MAX)
  }

  async report (input: ReportInput): Promise<ReportResult> {
    const parsed = ReportInputSchema.safeParse(input)
    if (!parsed.success) throw SdkError.invalidArgument('report', parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; '))
    const r = parsed.data
    const key = `${r.channel}\u0000${r.category}`
    const now = this.deps.now()
    const until = this.cooldown.get(key) ?? 0
    if (now < until) return { status: 'cooldown', retryAfter: Math.ceil((until - now) / 1000) }
    const token = this.deps.token()
    if (token === null) throw SdkError.notLoggedIn()
    const rpc = this.deps.rpc()
    if (rpc === null) throw SdkError.notConnected()
    const text = r.text === undefined || r.text === null ? null : r.text.replace(CONTROL, '').slice(0, REPORT_TEXT_MAX)
    let reply: unknown
    try {
      reply = await rpc.request(REPORT_METHOD, {
        v: 1,
        token,
        category: r.category,
        text,
        channel: r.channel,
        appVersion: r.appVersion ?? '',
        platform: r.platform ?? '',
        peers: this.deps.peers(),
        events: [...this.ring]
      })
    } catch (err) {
      if (err instanceof RpcError && err.code === 'RPC_UNKNOWN_METHOD') return this.answered(key, { status: 'unsupported' })
      if (err instanceof RpcError && err.code === 'RPC_CLOSED') throw SdkError.notConnected()
      throw SdkError.reportRejected(err instanceof Error ? err.message : String(err), err)
    }
    const body = (reply ?? {}) as { ok?: unknown; collapsed?: unknown; error?: unknown; retryAfter?: unknown }
    if (body.error === 'locked') return { status: 'locked', ...(typeof body.retryAfter === 'number' ? { retryAfter: body.retryAfter } : {}) }
    if (typeof body.error === 'string') throw SdkError.reportRejected(body.error)
    return this.answered(key, { status: body.collapsed === true ? 'collapsed' : 'sent' })
  }

  private answered (key: string, result: ReportResult): ReportResult {
    this.cooldown.set(key, this.deps.now() + REPORT_COOLDOWN_MS)
    return result
  }
}

function cutBytes (s: string, max: number): string {
  if (b4a.byteLength(s, 'utf8') <= max) return s
  let out = s
  while (b4a.byteLength(out, 'utf8') > max) out = out.slice(0, -1)
  return out
}
