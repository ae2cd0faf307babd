import { describe, expect, it } from 'vitest'
import { ArusBackend, currentDevice } from '../src/index.js'
import { Platform } from './doubles/react-native.js'

// Spec 3 "Versioning" 1 and the lazy-load rule: below API 29, or on a 32-bit OS, the whole
// backend is inert and the engine host module (react-native-bare-kit) is never loaded. This
// file runs in its own module graph: the double counts its own evaluations.

const loads = (): number => (globalThis as { __arusBareKitLoads?: number }).__arusBareKitLoads ?? 0

describe('an unsupported device', () => {
  it('isSupported() follows API level, bitness and OS', () => {
    expect(ArusBackend.isSupported({ os: 'android', apiLevel: 29, is64Bit: true })).toBe(true)
    expect(ArusBackend.isSupported({ os: 'android', apiLevel: 28, is64Bit: true })).toBe(false)
    expect(ArusBackend.isSupported({ os: 'android', apiLevel: 34, is64Bit: false })).toBe(false)
    expect(ArusBackend.isSupported({ os: 'ios', apiLevel: 17, is64Bit: true })).toBe(true)
    expect(ArusBackend.isSupported({ os: 'web', apiLevel: null, is64Bit: true })).toBe(false)
  })

  it('reads the device from react-native: API 28 is unsupported, 34 on arm64 is supported, a 32-bit ABI list is not', () => {
    Object.assign(Platform, { OS: 'android', Version: 28, constants: { supported64BitAbis: ['arm64-v8a'] } })
    expect(currentDevice()).toEqual({ os: 'android', apiLevel: 28, is64Bit: true })
    expect(ArusBackend.isSupported()).toBe(false)
    Object.assign(Platform, { Version: 34, constants: { supported64BitAbis: [] } })
    expect(ArusBackend.isSupported()).toBe(false)
    Object.assign(Platform, { Version: 34, constants: { supported64BitAbis: ['arm64-v8a'] } })
    expect(ArusBackend.isSupported()).toBe(true)
  })

  for (const device of [{ os: 'android', apiLevel: 28, is64Bit: true }, { os: 'android', apiLevel: 33, is64Bit: false }]) {
    it(`API ${device.apiLevel}, ${device.is64Bit ? '64' : '32'}-bit: start and every method are silent no-ops, no listener fires, the engine module is never loaded`, async () => {
      const warnings: string[] = []
      const b = new ArusBackend({ device, warn: (m) => warnings.push(m) })
      let fired = 0
      const off = b.onMessage(() => { fired++ })
      await b.start('AAAA', { panelPubKey: 'a'.repeat(64) })
      b.login('alice', 'pw')
      b.play('news')
      b.playRaw('a'.repeat(64), 'b'.repeat(64))
      b.reconnect()
      b.setZapPrefetch(true)
      b.setNetworkProfile(true, true)
      b.requestPrefs()
      b.saveCredentials('alice', 'pw')
      b.clearCredentials()
      b.toggleFavorite('news')
      b.stop()
      off()
      expect(b.isFavorite('news')).toBe(false)
      expect([b.port, b.url, b.activeStreamId, b.creds, b.streams, b.favorites]).toEqual([null, null, null, null, [], []])
      expect(fired).toBe(0)
      expect(warnings).toEqual([])
      expect(loads()).toBe(0)
    })
  }

  it('on a supported device the engine host is imported at start(), not before', async () => {
    expect(loads()).toBe(0)
    const b = new ArusBackend({ device: { os: 'android', apiLevel: 34, is64Bit: true } })
    expect(loads()).toBe(0)
    const written: Uint8Array[] = []
    ;(globalThis as { __arusWorkletFactory?: unknown }).__arusWorkletFactory = () => ({ IPC: { on: () => {}, write: (d: Uint8Array) => written.push(d) }, start: () => {}, terminate: () => {} })
    await b.start(new Uint8Array([1, 2, 3]), { panelPubKey: 'a'.repeat(64) })
    expect(loads()).toBe(1)
    expect(JSON.parse(new TextDecoder().decode(written[0]))).toEqual({ cmd: 'start', v: 1, panelPubKey: 'a'.repeat(64) })
  })
})
