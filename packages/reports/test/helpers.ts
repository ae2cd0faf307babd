import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createActivity, createLogger } from '@arus/service'
import { createLogSink, tmpDir, type LogSink, type TestContextLike } from '@arus/testkit'
import { createReports, type Reports, type ReportsSettings } from '@arus/reports'

export const SETTINGS: ReportsSettings = {
  retentionDays: 30, maxPerWindow: 5, windowSeconds: 600, alertCount: 3, alertWindowMinutes: 10, stormSample: 20,
  globalPerMinute: 120, webhookUrl: null, messenger: null, notifyRetryMs: 50
}

/** A reports service in a temp dir, with a settable clock and a captured log. */
export async function reportsFor (t: TestContextLike, settings: Partial<ReportsSettings> = {}, init: { dir?: string; now?: () => number } = {}) {
  const sink = createLogSink()
  const log = createLogger({ name: 'reports-test', level: 'debug', destination: sink.stream })
  const activity = createActivity(log, { fields: ['channel', 'category', 'alert'] })
  const dir = init.dir ?? tmpDir(t)
  const reports = createReports({ log, activity, ...(init.now ? { now: init.now } : {}) }, { dir, salt: new Uint8Array(32).fill(7), serviceName: 'arus-test', settings: { ...SETTINGS, ...settings } })
  await reports.start()
  t.onTestFinished(() => reports.close())
  return { reports, dir, sink, activity }
}

export const input = (channel = 'news', category: 'buffering' | 'login' | 'no-audio' = 'buffering') =>
  ({ channel, category, text: null, appVersion: '1.0', platform: 'test', peers: 2, events: [{ kind: 'error' as const, at: 1, detail: 'stalled' }] })

/** A device: the username and device id the pseudonym hides. */
export const who = (i: number) => ({ userId: `viewer${i}`, deviceId: i.toString(16).padStart(64, 'a') })

/** A local HTTP receiver; `reply` decides each answer. Closed with the test. */
export async function receiver (t: TestContextLike, reply: (req: IncomingMessage, body: string, res: ServerResponse) => void = (_q, _b, res) => { res.end('ok') }) {
  const got: Array<{ url: string; headers: IncomingMessage['headers']; body: string; at: number }> = []
  const server = createServer((req, res) => {
    let body = ''
    req.on('data', (c: Buffer) => { body += c.toString() })
    req.on('end', () => { got.push({ url: req.url ?? '', headers: req.headers, body, at: Date.now() }); reply(req, body, res) })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, got }
}

export type { LogSink, Reports }
