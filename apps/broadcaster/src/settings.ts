import { childPrefix } from '@arus/service'
import type { ManagerSettings } from './channels/manager.js'
import type { BroadcasterConfig } from './config.js'
import type { BroadcasterPaths } from './paths.js'

/** Tunables the modules need, derived once from the parsed env. */

export function managerSettings (c: BroadcasterConfig, paths: BroadcasterPaths): ManagerSettings {
  return {
    publicHost: c.PUBLIC_HOST,
    scratchRoot: paths.scratch,
    defaults: { buffer: c.FEED_BUFFER, hlsTime: c.HLS_TIME, hlsListSize: c.HLS_LIST_SIZE },
    watchdog: {
      ffmpeg: c.FFMPEG_PATH,
      ffmpegPrefix: childPrefix(c.ENCODER_NICE),
      ffprobe: c.FFPROBE_PATH,
      ingestBind: c.INGEST_BIND,
      slateEnabled: c.SLATE_ENABLED,
      slateAfter: c.SLATE_AFTER,
      slateRetryMs: c.SLATE_RETRY_MS,
      backoffMinMs: c.RESPAWN_MIN_MS,
      backoffMaxMs: Math.max(c.RESPAWN_MIN_MS, c.RESPAWN_MAX_MS),
      stallMs: c.STALL_SEC * 1000
    }
  }
}
