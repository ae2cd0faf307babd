import { describe, expect, it } from 'vitest'
import { ENGINE_PROTOCOL_VERSION } from '@arus/engine-protocol'
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

  it('reads API level from react-native and bitness from the ABI list the host gives: API 28 is unsupported, 34 on arm64 is supported, a 32-bit list is not', () => {
    // Issue 39 item 5: react-native's Platform.constants has no ABI list (the double has the real shape).
    expect(Object.keys(Platform.constants).filter((k) => /abi/i.test(k))).toEqual([])
    Object.assign(Platform, { OS: 'android', Version: 28 })
    expect(currentDevice(['arm64-v8a', 'armeabi-v7a', 'armeabi'])).toEqual({ os: 'android', apiLevel: 28, is64Bit: true })
    expect(ArusBackend.isSupported(currentDevice(['arm64-v8a', 'armeabi-v7a', 'armeabi']))).toBe(false)
    Object.assign(Platform, { Version: 34 })
    expect(currentDevice(['armeabi-v7a', 'armeabi'])).toEqual({ os: 'android', apiLevel: 34, is64Bit: false })
    expect(ArusBackend.isSupported(currentDevice(['armeabi-v7a', 'armeabi']))).toBe(false)
    expect(ArusBackend.isSupported(currentDevice(['arm64-v8a', 'armeabi-v7a', 'armeabi']))).toBe(true)
    expect(ArusBackend.isSupported(currentDevice(['x86_64', 'x86']))).toBe(true)
  })

  it('without an ABI list an Android device is not guessed 64-bit: unsupported, with a warning', () => {
    Object.assign(Platform, { OS: 'android', Version: 34 })
    expect(currentDevice()).toEqual({ os: 'android', apiLevel: 34, is64Bit: null })
    expect(ArusBackend.isSupported()).toBe(false)
    const warnings: string[] = []
    void new ArusBackend({ warn: (m) => warnings.push(m) })
    expect(warnings).toEqual([expect.stringContaining('BackendInit.abis')])
    // Below API 29 the engine is off anyway: no warning.
    Object.assign(Platform, { Version: 28 })
    void new ArusBackend({ warn: (m) => warnings.push(m) })
    expect(warnings).toHaveLength(1)
    Object.assign(Platform, { OS: 'ios', Version: '17.4' })
    expect(ArusBackend.isSupported()).toBe(true)
    Object.assign(Platform, { OS: 'android', Version: 34 })
  })

  it('a 32-bit TV box at API 30 (its ABI list from the host) gets an inert backend: start() loads nothing', async () => {
    Object.assign(Platform, { OS: 'android', Version: 30 })
    let made = 0
    const warnings: string[] = []
    const b = new ArusBackend({ abis: ['armeabi-v7a', 'armeabi'], createWorklet: () => { made++; throw new Error('the engine must not start') }, warn: (m) => warnings.push(m) })
    let fired = 0
    b.onMessage(() => { fired++ })
    await b.start('AAAA', { panelPubKey: 'a'.repeat(64) })
    b.login('alice', 'pw')
    expect([made, fired, loads()]).toEqual([0, 0, 0])
    expect(warnings).toEqual([])
    Object.assign(Platform, { Version: 34 })
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
    expect(JSON.parse(new TextDecoder().decode(written[0]))).toEqual({ cmd: 'start', v: ENGINE_PROTOCOL_VERSION, panelPubKey: 'a'.repeat(64) })
  })
})
