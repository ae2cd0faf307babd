#!/usr/bin/env node
// A headless Arus player: logs in, plays the first live channel of the lineup (or
// ARUS_STREAM) and prints the local HLS URL to open in any player. Ctrl-C stops it.
//
//   ARUS_PANEL_KEY=<hex> ARUS_USER=alice ARUS_PASSWORD=... [ARUS_BOOTSTRAP=127.0.0.1:49737] \
//     node examples/headless.mjs
import { createPlayer, loginWithRetry } from '@arus/sdk'

const env = process.env
const bootstrap = (env.ARUS_BOOTSTRAP ?? '').split(',').filter(Boolean).map((hp) => {
  const i = hp.lastIndexOf(':')
  return { host: hp.slice(0, i), port: Number(hp.slice(i + 1)) }
})

const player = createPlayer({
  panelPubKey: env.ARUS_PANEL_KEY,
  storeDir: env.ARUS_STORE_DIR ?? './arus-store',
  ...(bootstrap.length > 0 ? { swarm: { bootstrap } } : {})
})
const log = (...a) => console.log(new Date().toISOString(), ...a)
player.on('status', (e) => log('status', e.state))
player.on('peers', (n) => log('peers', n))
player.on('feed-changed', (e) => log('feed changed; reload', e.url))
player.on('error', (err) => log('error', err.message))
player.on('recovered', (err) => log('store recovered after', err.message))

process.once('SIGINT', () => { player.stop().then(() => process.exit(0)) })
process.once('SIGTERM', () => { player.stop().then(() => process.exit(0)) })

await player.connect()
const lineup = await loginWithRetry(player, env.ARUS_USER, env.ARUS_PASSWORD)
for (const item of lineup) log('lineup', item.id, item.title, item.type, item.available ? '' : '(not available)')
const pick = env.ARUS_STREAM ?? lineup.find((i) => i.available && !i.redirect)?.id
if (pick === undefined) {
  log('nothing to play')
  await player.stop()
} else {
  const result = await player.resolve(pick)
  log('playing', pick, result.type)
  console.log(`URL ${result.url}`)
}
