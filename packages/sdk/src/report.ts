import b4a from 'b4a'
import {
  REPORT_CATEGORIES, REPORT_EVENT_DETAIL_MAX_BYTES, REPORT_EVENTS_MAX, REPORT_TEXT_MAX, RpcError, type RpcClient
} from '@arus/rpc'
import { z } from 'zod'
import { REPORT_COOLDOWN_MS } from './constants.js'
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
    const text = r.text === undefined || r.text === null ? null : cutUnits(r.text.replace(CONTROL, ''), REPORT_TEXT_MAX)
    let reply: { collapsed?: true }
    try {
      reply = await rpc.report({
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
      // 'unknown method': the panel has reports disabled or predates them (spec 3 "Errors").
      if (err instanceof RpcError && err.code === 'RPC_UNKNOWN_METHOD') return this.answered(key, { status: 'unsupported' })
      if (err instanceof RpcError && err.code === 'RPC_CLOSED') throw SdkError.notConnected()
      // The panel's throttle: shown like the cooldown, and this key waits as long as the panel asks.
      if (err instanceof RpcError && err.reason === 'locked') {
        const retryAfter = err.retryAfter ?? Math.ceil(REPORT_COOLDOWN_MS / 1000)
        return this.answered(key, { status: 'locked', retryAfter }, retryAfter * 1000)
      }
      throw SdkError.reportRejected(err instanceof RpcError && err.reason !== undefined ? err.reason : err instanceof Error ? err.message : String(err), err)
    }
    return this.answered(key, { status: reply.collapsed === true ? 'collapsed' : 'sent' })
  }

  private answered (key: string, result: ReportResult, waitMs = REPORT_COOLDOWN_MS): ReportResult {
    this.cooldown.set(key, this.deps.now() + waitMs)
    return result
  }
}

/** The first `max` UTF-16 units of `s`, never ending on half a surrogate pair (the panel refuses lone surrogates). */
function cutUnits (s: string, max: number): string {
  if (s.length <= max) return s
  const code = s.charCodeAt(max - 1)
  return s.slice(0, code >= 0xd800 && code <= 0xdbff ? max - 1 : max)
}

function cutBytes (s: string, max: number): string {
  if (b4a.byteLength(s, 'utf8') <= max) return s
  let out = s
  while (b4a.byteLength(out, 'utf8') > max) out = out.slice(0, -1)
  return out
}
