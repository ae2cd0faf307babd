import { ArusError } from '@arus/service'

/** Broadcaster error codes: stable strings callers match on (docs/broadcaster.md lists them). */
export const BROADCASTER_ERROR_CODES = {
  BROADCASTER_NOT_FOUND: 'the named channel or admin does not exist',
  BROADCASTER_EXISTS: 'a channel or admin with that name already exists',
  BROADCASTER_INVALID_INPUT: 'a field failed validation (including a stringified object that does not parse); the message names the field',
  BROADCASTER_CHANNEL_RUNNING: 'the channel is running: stop it first (delete)',
  BROADCASTER_CHANNEL_STOPPED: 'the channel is not running (rotate needs a running channel)',
  BROADCASTER_ROTATE_NOT_DISK: 'rotate is refused outside disk buffer mode (a ram channel gets a fresh feed at each start)',
  BROADCASTER_PORT_IN_USE: "a push listener port is already taken by another channel's input",
  BROADCASTER_FFMPEG: 'ffmpeg or ffprobe could not be run or failed (the message carries its last output line)',
  BROADCASTER_CLOSED: 'the broadcaster is shutting down'
} as const

export type BroadcasterErrorCode = keyof typeof BROADCASTER_ERROR_CODES

/** HTTP status of each code when it crosses the control API. */
export const BROADCASTER_ERROR_STATUS: Record<BroadcasterErrorCode, number> = {
  BROADCASTER_NOT_FOUND: 404,
  BROADCASTER_EXISTS: 409,
  BROADCASTER_INVALID_INPUT: 400,
  BROADCASTER_CHANNEL_RUNNING: 409,
  BROADCASTER_CHANNEL_STOPPED: 409,
  BROADCASTER_ROTATE_NOT_DISK: 409,
  BROADCASTER_PORT_IN_USE: 409,
  BROADCASTER_FFMPEG: 500,
  BROADCASTER_CLOSED: 503
}

export class BroadcasterError extends ArusError {
  declare readonly code: BroadcasterErrorCode
  constructor (code: BroadcasterErrorCode, message: string = BROADCASTER_ERROR_CODES[code]) {
    super(code, message, { status: BROADCASTER_ERROR_STATUS[code] })
    this.name = 'BroadcasterError'
  }

  static notFound (what: string): BroadcasterError { return new BroadcasterError('BROADCASTER_NOT_FOUND', `${what} not found`) }
  static exists (what: string): BroadcasterError { return new BroadcasterError('BROADCASTER_EXISTS', `${what} already exists`) }
  static invalid (message: string): BroadcasterError { return new BroadcasterError('BROADCASTER_INVALID_INPUT', message) }
  static running (id: string): BroadcasterError { return new BroadcasterError('BROADCASTER_CHANNEL_RUNNING', `channel "${id}" is running: stop it first`) }
  static stopped (id: string): BroadcasterError { return new BroadcasterError('BROADCASTER_CHANNEL_STOPPED', `channel "${id}" is not running`) }
  static rotateNotDisk (id: string): BroadcasterError {
    return new BroadcasterError('BROADCASTER_ROTATE_NOT_DISK', `rotate refused: channel "${id}" uses the ram buffer (rotate needs buffer "disk")`)
  }

  static ffmpeg (message: string): BroadcasterError { return new BroadcasterError('BROADCASTER_FFMPEG', message) }
  static closed (): BroadcasterError { return new BroadcasterError('BROADCASTER_CLOSED') }
}
