import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { loadConfig } from '@arus/service'
import { reportsEnv, reportsSettings } from '@arus/reports'

const load = (env: Record<string, string>) => loadConfig(z.object(reportsEnv), env)

describe('REPORTS_* environment', () => {
  it('has the spec defaults', () => {
    const { settings, ignored } = reportsSettings(load({}))
    expect(settings).toEqual({
      retentionDays: 30, maxPerWindow: 5, windowSeconds: 600, alertCount: 3, alertWindowMinutes: 10, stormSample: 20,
      globalPerMinute: 120, webhookUrl: null, messenger: null, notifyRetryMs: 10_000
    })
    expect(ignored).toBeNull()
  })

  it.each([
    ['REPORTS_RETENTION_DAYS', '-1'], ['REPORTS_MAX_PER_WINDOW', '0'], ['REPORTS_WINDOW_SECONDS', 'ten'], ['REPORTS_ALERT_COUNT', '1.5'],
    ['REPORTS_ALERT_WINDOW_MIN', '0'], ['REPORTS_STORM_SAMPLE', '-2'], ['REPORTS_GLOBAL_PER_MIN', 'x'],
    ['REPORTS_WEBHOOK_URL', 'ftp://hooks.example/abc'], ['REPORTS_MSGR_BOT_TOKEN', 'has space'], ['REPORTS_MSGR_CHAT_ID', 'a/b']
  ])('aborts on an invalid %s, naming it', (name, value) => {
    expect(() => load({ [name]: value })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_CONFIG', message: expect.stringContaining(name) }))
  })

  it('never echoes the webhook URL or the bot token in a boot error', () => {
    const secretPath = 'http://hooks.example/services/T000/B000/XXXXSECRET'
    let message = ''
    try { load({ REPORTS_WEBHOOK_URL: secretPath, REPORTS_MSGR_BOT_TOKEN: 'bad token SECRET2' }) } catch (err) { message = (err as Error).message }
    expect(message).toContain('REPORTS_WEBHOOK_URL')
    expect(message).toContain('REPORTS_MSGR_BOT_TOKEN')
    expect(message).not.toContain('SECRET')
  })

  it('takes https targets, plain http only to loopback, and ignores a messenger half', () => {
    expect(reportsSettings(load({ REPORTS_WEBHOOK_URL: 'http://127.0.0.1:9/hook' })).settings.webhookUrl).toBe('http://127.0.0.1:9/hook')
    expect(() => load({ REPORTS_WEBHOOK_URL: 'http://hooks.example/hook' })).toThrow(/REPORTS_WEBHOOK_URL/)
    expect(() => load({ REPORTS_WEBHOOK_URL: 'https://user:pw@hooks.example/hook' })).toThrow(/REPORTS_WEBHOOK_URL/)
    expect(reportsSettings(load({ REPORTS_MSGR_BOT_TOKEN: '1:A' }))).toMatchObject({ settings: { messenger: null }, ignored: 'REPORTS_MSGR_BOT_TOKEN' })
    expect(reportsSettings(load({ REPORTS_MSGR_BOT_TOKEN: '1:A', REPORTS_MSGR_CHAT_ID: '42' })).settings.messenger)
      .toEqual({ apiBase: 'https://api.telegram.org/', botToken: '1:A', chatId: '42' })
  })
})
