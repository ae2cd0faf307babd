import { z } from 'zod'

/**
 * Channel records (spec 2 "Broadcaster channel"). What the operator sends is parsed by
 * input.ts into these shapes; channels.json stores exactly these, so a stringified
 * object can never end up stored as a file path.
 */

/** Channel ids are stream ids: the register payload's rule (spec 1, "Catalog record" rule 7). */
export const CHANNEL_ID = /^(?!__proto__$)[A-Za-z0-9_.-]{1,64}$/
export const ChannelId = z.string().regex(CHANNEL_ID, 'expected 1-64 of A-Z a-z 0-9 _ . -')

/** URL schemes a pull input may use (what ffmpeg reads as a live source). */
export const PULL_SCHEMES = ['http', 'https', 'rtmp', 'rtmps', 'rtsp', 'srt', 'udp', 'rtp', 'tcp'] as const

const pullUrl = z.string().max(4096).refine((s) => {
  if (!URL.canParse(s)) return false
  const scheme = new URL(s).protocol.slice(0, -1)
  return (PULL_SCHEMES as readonly string[]).includes(scheme)
}, `expected a URL with one of the schemes ${PULL_SCHEMES.join(', ')}`)

const port = z.number().int().min(1).max(65535)
/** True when `s` has no C0 control character or DEL (names, paths and titles never need them). */
export const noControl = (s: string) => ![...s].some((ch) => { const c = ch.charCodeAt(0); return c < 0x20 || c === 0x7f })

export const TestInput = z.strictObject({ kind: z.literal('test') })
export const FileInput = z.strictObject({
  kind: z.literal('file'),
  path: z.string().min(1).max(4096).refine(noControl, 'must not contain control characters')
})
export const PullInput = z.strictObject({ kind: z.literal('pull'), url: pullUrl, fallbacks: z.array(pullUrl).max(8).default([]) })
export const RtmpInput = z.strictObject({
  kind: z.literal('rtmp'),
  port: port.optional(),
  app: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).default('live')
})
export const SrtInput = z.strictObject({
  kind: z.literal('srt'),
  port: port.optional(),
  latencyMs: z.number().int().min(20).max(8000).optional(),
  passphrase: z.string().min(10).max(79).refine(noControl).optional()
})
export const UdpInput = z.strictObject({ kind: z.literal('udp'), port: port.optional() })

export const InputSpec = z.discriminatedUnion('kind', [TestInput, FileInput, PullInput, RtmpInput, SrtInput, UdpInput])
export type InputSpec = z.infer<typeof InputSpec>
export type InputKind = InputSpec['kind']
export type PushInput = Extract<InputSpec, { kind: 'rtmp' | 'srt' | 'udp' }>
export const PUSH_KINDS = ['rtmp', 'srt', 'udp'] as const
export const isPush = (input: InputSpec): input is PushInput => (PUSH_KINDS as readonly string[]).includes(input.kind)

/** Default listener ports; a channel without a port gets the first free one from here up. */
export const PUSH_BASE_PORT: Record<PushInput['kind'], number> = { rtmp: 1935, srt: 9000, udp: 5000 }

export const X264_PRESETS = ['ultrafast', 'superfast', 'veryfast', 'faster', 'fast', 'medium', 'slow', 'slower', 'veryslow'] as const

const even = (n: number) => n % 2 === 0

/**
 * Transcode settings. `auto` copies when the probed codecs allow (H.264 video, AAC audio,
 * no resize) and encodes H.264/AAC otherwise; `copy` and `h264`/`aac` force a choice.
 */
export const Transcode = z.strictObject({
  video: z.enum(['auto', 'copy', 'h264']).default('auto'),
  audio: z.enum(['auto', 'copy', 'aac']).default('auto'),
  width: z.number().int().min(16).max(7680).refine(even, 'must be even').optional(),
  height: z.number().int().min(16).max(4320).refine(even, 'must be even').optional(),
  fps: z.number().int().min(1).max(120).optional(),
  videoBitrateKbps: z.number().int().min(64).max(100_000).optional(),
  audioBitrateKbps: z.number().int().min(16).max(512).optional(),
  preset: z.enum(X264_PRESETS).optional()
})
export type Transcode = z.infer<typeof Transcode>

export const BufferMode = z.enum(['disk', 'ram'])
export type BufferMode = z.infer<typeof BufferMode>

export const HlsTime = z.number().int().min(1).max(30)
export const HlsListSize = z.number().int().min(2).max(64)
const Title = z.string().max(200).refine(noControl, 'must not contain control characters')
const Category = z.array(z.string().min(1).max(64)).max(16)

/** A stored channel (channels.json, version 1). */
export const Channel = z.strictObject({
  id: ChannelId,
  title: Title,
  category: Category,
  input: InputSpec,
  transcode: Transcode.nullable(),
  buffer: BufferMode,
  hlsTime: HlsTime,
  hlsListSize: HlsListSize,
  /** The operator wants it running: boot resumes it. */
  desiredRunning: z.boolean(),
  /** The env-configured channel (STREAM_ID): its first generation lives in the root store. */
  legacy: z.boolean().default(false),
  createdAt: z.number(),
  updatedAt: z.number()
})
export type Channel = z.infer<typeof Channel>

/** Fields accepted by POST /api/channels before input/transcode parsing (those two are `unknown`). */
export const CreateChannelBody = z.strictObject({
  id: ChannelId,
  title: Title.optional(),
  category: z.union([Category, z.string().max(1024)]).optional(),
  input: z.unknown(),
  transcode: z.unknown().optional(),
  buffer: BufferMode.optional(),
  hlsTime: HlsTime.optional(),
  hlsListSize: HlsListSize.optional()
})
export type CreateChannelBody = z.infer<typeof CreateChannelBody>

/** PATCH /api/channels/:id: metadata, input, transcode and the HLS/buffer settings; applies on next start. */
export const PatchChannelBody = CreateChannelBody.omit({ id: true }).partial()
export type PatchChannelBody = z.infer<typeof PatchChannelBody>
