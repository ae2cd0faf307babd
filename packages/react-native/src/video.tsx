import { useEffect, useRef, useState } from 'react'
import Video from 'react-native-video'
import type { EngineMessage } from '@arus/engine-protocol'
import type { ArusBackend } from './backend.js'

/** Spec 3 "Limits": a live playhead still this long while playing starts the self-heal. */
export const DEFAULT_STALL_TIMEOUT_MS = 12_000

/**
 * Zap-tuned buffering (spec 3 "Limits": playback starts at about 1 s buffered instead of about
 * 2.5 s): react-native-video 6 `bufferConfig`, merged under the host's own.
 */
export const ZAP_BUFFER_CONFIG = Object.freeze({
  minBufferMs: 4_000,
  maxBufferMs: 20_000,
  bufferForPlaybackMs: 1_000,
  bufferForPlaybackAfterRebufferMs: 2_000
})

/** A tune's phase: start, then retune or reconnect (show reconnecting), then playing. */
export interface TuneEvent { tuneId: number; streamId: string; phase: 'start' | 'retune' | 'reconnect' | 'playing' }
export interface StallEvent { streamId: string; stalledMs: number }
export interface SourceEvent { streamId: string; url: string; source: 'p2p' | 'cdn'; mediaType: 'live' | 'vod' }
export interface VideoError { code: string; message: string; streamId: string }

type Backend = Pick<ArusBackend, 'onMessage' | 'play' | 'reconnect'>

export interface ArusVideoProps {
  backend: Backend
  streamId: string
  autoPlay?: boolean
  paused?: boolean
  /** Transport controls; default: on for vod titles, off for live channels. */
  controls?: boolean
  style?: unknown
  resizeMode?: 'contain' | 'cover' | 'stretch' | 'none'
  onTune?: (e: TuneEvent) => void
  onPeers?: (peers: number) => void
  onBuffering?: (buffering: boolean) => void
  onSource?: (e: SourceEvent) => void
  /** Friendly failures, the tune timeout included (it ends the tune). */
  onError?: (e: VideoError) => void
  /** Informational: the component already remounted the player on the new feed. */
  onFeedChanged?: (e: { streamId: string; feedKey: string; url: string }) => void
  /** The frozen-live-edge self-heal started. */
  onStall?: (e: StallEvent) => void
  stallTimeoutMs?: number
  bufferConfig?: Record<string, number>
  selectedAudioTrack?: unknown
  selectedTextTrack?: unknown
  onAudioTracks?: (e: unknown) => void
  onTextTracks?: (e: unknown) => void
  /** Extra props for the underlying react-native-video player. */
  videoProps?: Record<string, unknown>
}

interface Playing { url: string; mediaType: 'live' | 'vod' }
/** Where the self-heal stands: idle, remounted at the live edge, or escalated to a backend reconnect. */
type Heal = 'idle' | 'resync' | 'reconnect'

/**
 * The engine's local stream in react-native-video (spec 3 "Video component"): tunes with
 * `backend.play(streamId)`, follows the engine's tune phases per monotonic tune id, remounts on
 * feed-changed, and heals a frozen live edge (remount at the live edge, then a backend
 * reconnect). Vod titles get transport controls and none of the live-edge machinery.
 */
export function ArusVideo (props: ArusVideoProps): JSX.Element | null {
  const { backend, streamId } = props
  const [playing, setPlaying] = useState<Playing | null>(null)
  const [mount, setMount] = useState(0)
  const latest = useRef(props)
  latest.current = props
  const tune = useRef({ id: 0, ended: true, phase: 'start' as TuneEvent['phase'] })
  const clock = useRef({ lastTime: -1, lastAdvanceAt: 0, heal: 'idle' as Heal, healAt: 0 })

  const phase = (p: TuneEvent['phase']): void => {
    const t = tune.current
    if (t.ended) return
    t.phase = p
    if (p === 'playing') t.ended = true
    latest.current.onTune?.({ tuneId: t.id, streamId, phase: p })
  }

  // A new tune for each stream id (and the first mount).
  useEffect(() => {
    const t = tune.current
    t.id += 1
    t.ended = false
    setPlaying(null)
    clock.current = { lastTime: -1, lastAdvanceAt: Date.now(), heal: 'idle', healAt: 0 }
    phase('start')
    const off = backend.onMessage((msg: EngineMessage) => {
      const p = latest.current
      switch (msg.type) {
        case 'status':
          if (msg.streamId !== streamId) return
          if (msg.state === 'playing' && msg.url !== undefined) {
            const mediaType = msg.mediaType ?? 'live'
            setPlaying({ url: msg.url, mediaType })
            p.onSource?.({ streamId, url: msg.url, source: msg.source ?? 'p2p', mediaType })
          } else if (msg.state === 'feed:retune') phase('retune')
          else if (msg.state === 'feed:reconnect') phase('reconnect')
          else if (msg.state === 'peers' && msg.peers !== undefined) p.onPeers?.(msg.peers)
          return
        case 'error':
          if (msg.streamId !== streamId) return
          p.onError?.({ code: msg.code, message: msg.message, streamId })
          if (msg.code === 'SDK_TUNE_TIMEOUT' || msg.cmd === 'play') tune.current.ended = true
          return
        case 'feed-changed':
          if (msg.streamId !== streamId) return
          setMount((n) => n + 1)
          clock.current.lastAdvanceAt = Date.now()
          p.onFeedChanged?.({ streamId, feedKey: msg.feedKey, url: msg.url })
          return
        default:
      }
    })
    backend.play(streamId)
    return off
  }, [backend, streamId])

  const live = playing?.mediaType === 'live'
  const stallMs = props.stallTimeoutMs ?? DEFAULT_STALL_TIMEOUT_MS
  const paused = props.paused ?? (props.autoPlay === false)

  // The frozen-live-edge ladder: still for stallMs while playing → remount at the live edge;
  // still for another stallMs after that → backend reconnect (and start over).
  useEffect(() => {
    if (!live || paused) return
    clock.current.lastAdvanceAt = Date.now()
    const timer = setInterval(() => {
      const c = clock.current
      if (!tune.current.ended || tune.current.phase !== 'playing') return
      const now = Date.now()
      if (c.heal === 'idle' && now - c.lastAdvanceAt >= stallMs) {
        c.heal = 'resync'
        c.healAt = now
        latest.current.onStall?.({ streamId, stalledMs: now - c.lastAdvanceAt })
        setMount((n) => n + 1)
      } else if (c.heal === 'resync' && now - c.healAt >= stallMs) {
        c.heal = 'reconnect'
        c.healAt = now
        backend.reconnect()
        setMount((n) => n + 1)
      } else if (c.heal === 'reconnect' && now - c.healAt >= stallMs) {
        c.heal = 'idle'
        c.lastAdvanceAt = now
      }
    }, Math.max(250, Math.min(1000, Math.floor(stallMs / 4))))
    return () => clearInterval(timer)
  }, [live, paused, stallMs, backend, streamId])

  if (playing === null) return null
  const onProgress = (e: { currentTime: number }): void => {
    const c = clock.current
    if (e.currentTime !== c.lastTime) {
      c.lastTime = e.currentTime
      c.lastAdvanceAt = Date.now()
      c.heal = 'idle'
      phase('playing')
    }
    const extra = latest.current.videoProps?.onProgress
    if (typeof extra === 'function') extra(e)
  }
  return (
    <Video
      key={`${streamId}:${mount}`}
      source={{ uri: playing.url }}
      paused={paused}
      controls={props.controls ?? !live}
      resizeMode={props.resizeMode ?? 'contain'}
      style={props.style}
      bufferConfig={{ ...ZAP_BUFFER_CONFIG, ...props.bufferConfig }}
      selectedAudioTrack={props.selectedAudioTrack}
      selectedTextTrack={props.selectedTextTrack}
      onAudioTracks={props.onAudioTracks}
      onTextTracks={props.onTextTracks}
      onBuffer={(e: { isBuffering: boolean }) => props.onBuffering?.(e.isBuffering)}
      onError={(e: unknown) => props.onError?.({ code: 'PLAYER_ERROR', message: JSON.stringify(e).slice(0, 500), streamId })}
      {...props.videoProps}
      onProgress={onProgress}
    />
  )
}
