import { createPlayer, loginWithRetry, type DisplayItem, type Player } from '@arus/sdk'
import { logger, readPassword, type ViewerIO } from './io.js'
import type { ViewerOptions } from './options.js'

/**
 * The viewer run: password → connect → login (host retry pattern) → lineup → play one stream
 * → log status/peers/feed changes until stopped. Resolves the exit code (0 after a clean stop,
 * 1 on a failure). The password never reaches a log line.
 */
export async function runViewer (opts: ViewerOptions, io: ViewerIO): Promise<number> {
  const log = logger(io, opts.json)
  const password = await readPassword(io, `password for ${opts.user}: `)
  if (password === '') { io.stderr.write('error: empty password (type it at the prompt or give it as the first line of stdin)\n'); return 1 }
  const player = createPlayer({
    panelPubKey: opts.panelKey,
    storeDir: opts.storeDir,
    uploadPolicy: opts.uploadPolicy,
    deviceLabel: 'arus-viewer',
    ...(opts.bootstrap.length > 0 ? { swarm: { bootstrap: opts.bootstrap } } : {}),
    ...(opts.allowOrigin === undefined ? {} : { server: { allowOrigin: opts.allowOrigin } })
  })
  watch(player, log)
  const stopped = new Promise<void>((resolve) => {
    if (io.signal?.aborted === true) resolve()
    io.signal?.addEventListener('abort', () => resolve(), { once: true })
  })
  try {
    const lineup = await untilStopped(stopped, (async () => {
      await player.connect()
      log('connected', { panelKey: opts.panelKey }, `connected: looking for panel ${opts.panelKey.slice(0, 12)}… on the DHT`)
      return loginWithRetry(player, opts.user, password, io.signal === undefined ? {} : { signal: io.signal })
    })())
    if (lineup === null) return 0
    log('lineup', { streams: lineup.map(brief) }, ['lineup:', ...lineup.map((i, n) => `  ${n + 1}. ${i.id}  ${i.title}  (${describe(i)})`)].join('\n'))
    const pick = opts.play ?? lineup.find((i) => i.available && !i.redirect && i.type === 'live')?.id ?? lineup.find((i) => i.available)?.id
    if (pick === undefined) {
      io.stderr.write('error: nothing to play: no entitled stream is available right now\n')
      return 1
    }
    const result = await player.resolve(pick)
    log('playing', { streamId: pick, url: result.url, source: result.source, type: result.type }, `playing ${pick} (${result.type}, ${result.source}): ${result.url}`)
    await stopped
    return 0
  } catch (err) {
    const e = err as Error & { code?: string }
    io.stderr.write(`error: ${e.code === undefined ? '' : `[${e.code}] `}${e.message}\n`)
    return 1
  } finally {
    await player.stop()
    log('stopped', {}, 'stopped')
  }
}

function watch (player: Player, log: ReturnType<typeof logger>): void {
  player.on('status', (e) => log('status', { state: e.state, streamId: e.streamId }, `status ${e.state}`))
  player.on('peers', (n) => log('peers', { peers: n }, `peers ${n}`))
  player.on('feed-changed', (e) => log('feed-changed', { ...e }, `feed changed (${e.streamId}): same URL ${e.url}, reload the player`))
  player.on('streams', (list) => log('streams', { count: list.length }, `lineup updated (${list.length} streams)`))
  player.on('recovered', (err) => log('recovered', { reason: err.message }, `replica store was damaged and has been rebuilt (${err.message})`))
  player.on('error', (err) => log('error', { code: (err as Error & { code?: string }).code, message: err.message }, `error ${err.message}`))
}

function brief (i: DisplayItem) {
  return { id: i.id, title: i.title, type: i.type, available: i.available, redirect: i.redirect }
}

function describe (i: DisplayItem): string {
  if (i.redirect) return 'redirect'
  if (i.type === 'vod') return i.available ? 'vod' : 'vod, unavailable'
  return i.isLive === true ? 'live' : 'off air'
}

/** `work`, unless the run is stopped first (then null). */
async function untilStopped<T> (stopped: Promise<void>, work: Promise<T>): Promise<T | null> {
  work.catch(() => {})
  return Promise.race([work, stopped.then(() => null)])
}
