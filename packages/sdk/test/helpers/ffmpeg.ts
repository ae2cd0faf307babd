import { decodeWithFfmpeg, type DecodeResult } from '@arus/testkit'

export type FfmpegResult = DecodeResult

/**
 * Decodes `seconds` of `url` with ffmpeg into the null muxer (testkit's decodeWithFfmpeg:
 * asynchronously, as the engine serving the URL runs in this process). Killed after `timeoutMs`.
 */
export function decode (url: string, seconds: number, timeoutMs = 60_000, extra: string[] = []): Promise<FfmpegResult> {
  return decodeWithFfmpeg(url, seconds, { timeoutMs, inputArgs: extra })
}
