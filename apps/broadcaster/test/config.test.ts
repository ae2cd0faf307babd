import { describe, expect, it } from 'vitest'
import { loadBroadcasterConfig } from '../src/config.js'

/** The SERVICE_INVALID_CONFIG error `env` causes (fails if it loads). */
function refusal (env: Record<string, string>): { code?: string; message: string } {
  try {
    loadBroadcasterConfig(env)
  } catch (err) {
    return err as { code?: string; message: string }
  }
  throw new Error('expected the environment to be refused')
}

describe('broadcaster config', () => {
  const a = 'ab'.repeat(32)
  const b = 'CD'.repeat(32)

  it('ORIGIN_RELAY_KEYS: a comma-separated list of swarm public keys, empty by default', () => {
    expect(loadBroadcasterConfig({}).ORIGIN_RELAY_KEYS).toEqual([])
    expect(loadBroadcasterConfig({ ORIGIN_RELAY_KEYS: ` ${a} , ${b} ` }).ORIGIN_RELAY_KEYS).toEqual([a, b])
  })

  it('an ORIGIN_RELAY_KEYS entry that is not 64 hex characters aborts boot naming the variable', () => {
    for (const value of ['nothex', `${a},${a.slice(2)}`, `${a}0`]) {
      const err = refusal({ ORIGIN_RELAY_KEYS: value })
      expect(err.code).toBe('SERVICE_INVALID_CONFIG')
      expect(err.message).toContain('ORIGIN_RELAY_KEYS')
    }
  })

  it('ORIGIN_UPLINK_KBIT: 0 (no pacing) by default, a rate in kbit/s; nonsense aborts boot naming it', () => {
    expect(loadBroadcasterConfig({}).ORIGIN_UPLINK_KBIT).toBe(0)
    expect(loadBroadcasterConfig({ ORIGIN_UPLINK_KBIT: '1500' }).ORIGIN_UPLINK_KBIT).toBe(1500)
    for (const value of ['-1', 'fast', '1.5']) {
      const err = refusal({ ORIGIN_UPLINK_KBIT: value })
      expect(err.code).toBe('SERVICE_INVALID_CONFIG')
      expect(err.message).toContain('ORIGIN_UPLINK_KBIT')
    }
  })
})
