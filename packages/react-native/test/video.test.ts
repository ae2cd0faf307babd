import { createElement } from 'react'
import { act, create, type ReactTestRenderer } from 'react-test-renderer'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { EngineMessage } from '@arus/engine-protocol'
import { ArusVideo, EngineNotice, ZAP_BUFFER_CONFIG, type ArusVideoProps, type TuneEvent } from '../src/index.js'
import { videoMounts } from './doubles/react-native-video.js'

// ArusVideo and EngineNotice rendered with react-test-renderer; react-native, react-native-video
// and the backend are test doubles (no phone here). Timers are fake: the stall ladder runs on them.

;(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true

function fakeBackend () {
  const listeners = new Set<(m: EngineMessage) => void>()
  return {
    played: [] as string[],
    reconnects: 0,
    onMessage (fn: (m: EngineMessage) => void) { listeners.add(fn); return () => { listeners.delete(fn) } },
    play (id: string) { this.played.push(id) },
    reconnect () { this.reconnects++ },
    emit (m: EngineMessage) { act(() => { for (const fn of [...listeners]) fn(m) }) },
    get listeners () { return listeners.size }
  }
}

const URL = 'http://127.0.0.1:4000/index.m3u8'
const playing = (streamId: string, mediaType: 'live' | 'vod' = 'live'): EngineMessage => ({ type: 'status', state: 'playing', streamId, url: URL, source: 'p2p', mediaType, feedKey: 'k' })

let renderer: ReactTestRenderer | null = null
function render (props: ArusVideoProps): ReactTestRenderer {
  act(() => { renderer = create(createElement(ArusVideo, props)) })
  return renderer!
}
const video = (r: ReactTestRenderer) => r.root.findByType('RNVideo' as never)
const progress = (r: ReactTestRenderer, currentTime: number): void => { act(() => { (video(r).props.onProgress as (e: { currentTime: number }) => void)({ currentTime }) }) }

beforeEach(() => { vi.useFakeTimers() })
afterEach(() => {
  act(() => renderer?.unmount())
  renderer = null
  vi.useRealTimers()
})

describe('ArusVideo: tune phases per monotonic tune id', () => {
  it('a normal tune: start, then playing once the playhead moves; onSource and onPeers from the engine', () => {
    const b = fakeBackend()
    const tunes: TuneEvent[] = []
    const sources: unknown[] = []
    const peers: number[] = []
    const r = render({ backend: b, streamId: 'news', onTune: (e) => tunes.push(e), onSource: (e) => sources.push(e), onPeers: (n) => peers.push(n) })
    expect(b.played).toEqual(['news'])
    expect(r.root.findAllByType('RNVideo' as never)).toHaveLength(0) // nothing to show before the engine confirms
    b.emit({ type: 'status', state: 'feed:open', streamId: 'news' })
    b.emit(playing('news'))
    expect(video(r).props.source).toEqual({ uri: URL })
    expect(sources).toEqual([{ streamId: 'news', url: URL, source: 'p2p', mediaType: 'live' }])
    b.emit({ type: 'status', state: 'peers', streamId: 'news', peers: 3 })
    b.emit({ type: 'status', state: 'peers', streamId: 'other', peers: 9 })
    progress(r, 0.4)
    progress(r, 0.8)
    expect(tunes).toEqual([{ tuneId: 1, streamId: 'news', phase: 'start' }, { tuneId: 1, streamId: 'news', phase: 'playing' }])
    expect(peers).toEqual([3])
  })

  it('a retune and a reconnect show as phases before playing; a new stream id is a new tune', () => {
    const b = fakeBackend()
    const tunes: TuneEvent[] = []
    const onTune = (e: TuneEvent): void => { tunes.push(e) }
    const r = render({ backend: b, streamId: 'news', onTune })
    b.emit({ type: 'status', state: 'feed:retune', streamId: 'news' })
    b.emit({ type: 'status', state: 'feed:reconnect', streamId: 'news' })
    b.emit(playing('news'))
    progress(r, 1)
    expect(tunes.map((e) => `${e.tuneId}:${e.phase}`)).toEqual(['1:start', '1:retune', '1:reconnect', '1:playing'])
    act(() => r.update(createElement(ArusVideo, { backend: b, streamId: 'sports', onTune })))
    expect(b.played).toEqual(['news', 'sports'])
    expect(tunes.at(-1)).toEqual({ tuneId: 2, streamId: 'sports', phase: 'start' })
    expect(b.listeners).toBe(1) // the old stream's subscription was dropped
  })

  it('the friendly timeout arrives through onError and ends the tune', () => {
    const b = fakeBackend()
    const tunes: string[] = []
    const errors: unknown[] = []
    render({ backend: b, streamId: 'news', onTune: (e) => tunes.push(e.phase), onError: (e) => errors.push(e) })
    b.emit({ type: 'status', state: 'feed:retune', streamId: 'news' })
    b.emit({ type: 'error', code: 'SDK_TUNE_TIMEOUT', message: 'could not tune in', cmd: 'play', streamId: 'news' })
    b.emit({ type: 'status', state: 'feed:reconnect', streamId: 'news' })
    expect(errors).toEqual([{ code: 'SDK_TUNE_TIMEOUT', message: 'could not tune in', streamId: 'news' }])
    expect(tunes).toEqual(['start', 'retune'])
  })
})

describe('ArusVideo: self-heal, rotation, vod, buffering', () => {
  it('a frozen live edge: onStall and a remount at the live edge after stallTimeoutMs, then a backend reconnect if it still does not play', () => {
    const b = fakeBackend()
    const stalls: unknown[] = []
    const r = render({ backend: b, streamId: 'news', onStall: (e) => stalls.push(e), stallTimeoutMs: 12_000 })
    b.emit(playing('news'))
    progress(r, 1)
    const mounts = videoMounts.count
    act(() => { vi.advanceTimersByTime(11_000) })
    expect(stalls).toEqual([])
    act(() => { vi.advanceTimersByTime(1_500) })
    expect(stalls).toEqual([{ streamId: 'news', stalledMs: expect.any(Number) }])
    expect((stalls[0] as { stalledMs: number }).stalledMs).toBeGreaterThanOrEqual(12_000)
    expect(videoMounts.count).toBe(mounts + 1) // remounted
    expect(b.reconnects).toBe(0)
    act(() => { vi.advanceTimersByTime(12_500) })
    expect(b.reconnects).toBe(1)
    expect(videoMounts.count).toBe(mounts + 2)
    expect(stalls).toHaveLength(1) // one heal, escalated
    // It plays again: the ladder resets and stays quiet while the playhead moves.
    for (let s = 2; s < 40; s++) { progress(r, s); act(() => { vi.advanceTimersByTime(1_000) }) }
    expect(b.reconnects).toBe(1)
    expect(stalls).toHaveLength(1)
  })

  it('a paused player never counts as stalled', () => {
    const b = fakeBackend()
    const stalls: unknown[] = []
    const r = render({ backend: b, streamId: 'news', paused: true, onStall: (e) => stalls.push(e) })
    b.emit(playing('news'))
    progress(r, 1)
    act(() => { vi.advanceTimersByTime(60_000) })
    expect(stalls).toEqual([])
    expect(video(r).props.paused).toBe(true)
  })

  it('feed-changed remounts the player on the same URL and tells the host', () => {
    const b = fakeBackend()
    const changes: unknown[] = []
    const r = render({ backend: b, streamId: 'news', onFeedChanged: (e) => changes.push(e) })
    b.emit(playing('news'))
    const mounts = videoMounts.count
    b.emit({ type: 'feed-changed', streamId: 'other', feedKey: 'x', url: URL })
    expect(videoMounts.count).toBe(mounts)
    b.emit({ type: 'feed-changed', streamId: 'news', feedKey: 'k2', url: URL })
    expect(videoMounts.count).toBe(mounts + 1)
    expect(changes).toEqual([{ streamId: 'news', feedKey: 'k2', url: URL }])
    expect(video(r).props.source).toEqual({ uri: URL })
  })

  it('a vod title gets transport controls and no live-edge machinery', () => {
    const b = fakeBackend()
    const stalls: unknown[] = []
    const r = render({ backend: b, streamId: 'vod.film', onStall: (e) => stalls.push(e) })
    b.emit(playing('vod.film', 'vod'))
    progress(r, 1)
    const mounts = videoMounts.count
    act(() => { vi.advanceTimersByTime(120_000) })
    expect(stalls).toEqual([])
    expect(b.reconnects).toBe(0)
    expect(videoMounts.count).toBe(mounts)
    expect(video(r).props.controls).toBe(true)
  })

  it('live: no controls by default; bufferConfig merges over the zap-tuned defaults (about 1 s to start); videoProps pass through', () => {
    const b = fakeBackend()
    const buffering: boolean[] = []
    const r = render({ backend: b, streamId: 'news', bufferConfig: { maxBufferMs: 30_000 }, onBuffering: (x) => buffering.push(x), videoProps: { repeat: false, testID: 'player' } })
    b.emit(playing('news'))
    const p = video(r).props
    expect(p.controls).toBe(false)
    expect(p.bufferConfig).toEqual({ ...ZAP_BUFFER_CONFIG, maxBufferMs: 30_000 })
    expect(p.bufferConfig.bufferForPlaybackMs).toBe(1_000)
    expect([p.repeat, p.testID]).toEqual([false, 'player'])
    act(() => { (p.onBuffer as (e: { isBuffering: boolean }) => void)({ isBuffering: true }) })
    expect(buffering).toEqual([true])
  })
})

describe('EngineNotice', () => {
  it('renders its title, message, colors and a focusable action; children replace the message', () => {
    let pressed = 0
    let r!: ReactTestRenderer
    act(() => { r = create(createElement(EngineNotice, { title: 'Not on this device', message: 'Watch in the browser instead.', colors: { background: '#000000', accent: '#ff5500' }, actionLabel: 'Open the web player', onAction: () => { pressed++ } })) })
    const root = r.root.findByProps({ testID: 'arus-engine-notice' })
    expect(root.props.style.backgroundColor).toBe('#000000')
    expect(r.root.findByProps({ testID: 'arus-engine-notice-title' }).props.children).toBe('Not on this device')
    expect(r.root.findByProps({ testID: 'arus-engine-notice-message' }).props.children).toBe('Watch in the browser instead.')
    const action = r.root.findByProps({ testID: 'arus-engine-notice-action' })
    expect([action.props.focusable, action.props.hasTVPreferredFocus, action.props.style.backgroundColor]).toEqual([true, true, '#ff5500'])
    expect(JSON.stringify(r.toJSON())).toContain('Open the web player')
    act(() => action.props.onPress())
    expect(pressed).toBe(1)
    act(() => r.update(createElement(EngineNotice, { title: 'T', children: createElement('Text', { testID: 'custom' }, 'Custom body') })))
    expect(r.root.findAllByProps({ testID: 'arus-engine-notice-message' })).toHaveLength(0)
    expect(r.root.findByProps({ testID: 'custom' }).props.children).toBe('Custom body')
    expect(r.root.findAllByProps({ testID: 'arus-engine-notice-action' })).toHaveLength(0)
    act(() => r.unmount())
  })
})
