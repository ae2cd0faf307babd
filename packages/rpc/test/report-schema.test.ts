import { describe, expect, it } from 'vitest'
import { MAX_REPORT_REQUEST_BYTES, METHODS, REPORT_CATEGORIES, ReportReply, ReportRequest } from '@arus/rpc'

// Spec 1 "Problem report": strict category enum, text ≤ 300, events ring ≤ 50 with details ≤ 200 bytes.
describe('report schema', () => {
  const report = {
    v: 1, token: 't', category: 'buffering', text: null, channel: 'news', appVersion: '1.0', platform: 'android', peers: 3,
    events: [{ kind: 'error', at: 1, detail: 'stalled' }]
  }

  it('accepts a report and each category, rejects any other category', () => {
    for (const category of REPORT_CATEGORIES) expect(ReportRequest.safeParse({ ...report, category }).success).toBe(true)
    for (const category of ['Buffering', 'audio', '', 'other ', 'login\u0000']) expect(ReportRequest.safeParse({ ...report, category }).success).toBe(false)
  })

  it('caps text, events and detail bytes; rejects unknown keys and event kinds', () => {
    expect(ReportRequest.safeParse({ ...report, text: 'x'.repeat(300) }).success).toBe(true)
    expect(ReportRequest.safeParse({ ...report, text: 'x'.repeat(301) }).success).toBe(false)
    const ev = { kind: 'status', at: 2, detail: 'é'.repeat(100) } // 200 UTF-8 bytes
    expect(ReportRequest.safeParse({ ...report, events: Array(50).fill(ev) }).success).toBe(true)
    expect(ReportRequest.safeParse({ ...report, events: Array(51).fill(ev) }).success).toBe(false)
    expect(ReportRequest.safeParse({ ...report, events: [{ ...ev, detail: 'é'.repeat(100) + 'x' }] }).success).toBe(false)
    expect(ReportRequest.safeParse({ ...report, events: [{ ...ev, kind: 'debug' }] }).success).toBe(false)
    expect(ReportRequest.safeParse({ ...report, username: 'alice' }).success).toBe(false)
  })

  it('has its own raw cap below the protocol cap, and a reply of ok with an optional collapsed', () => {
    expect(METHODS.report.maxRequestBytes).toBe(MAX_REPORT_REQUEST_BYTES)
    expect(MAX_REPORT_REQUEST_BYTES).toBe(32 * 1024)
    expect(ReportReply.safeParse({ v: 1, ok: true }).success).toBe(true)
    expect(ReportReply.safeParse({ v: 1, ok: true, collapsed: true }).success).toBe(true)
    expect(ReportReply.safeParse({ v: 1, ok: true, id: 'r1' }).success).toBe(false)
  })
})
