import { ArusError, type ErrorTable } from '@arus/service'

/** Broadcaster error codes: stable strings callers match on, their HTTP status and meaning (docs/broadcaster.md lists them). */
export const BROADCASTER_ERROR_CODES = {
  BROADCASTER_NOT_FOUND: { status: 404, meaning: 'the named channel or admin does not exist' },
  BROADCASTER_EXISTS: { status: 409, meaning: 'a channel or admin with that name already exists' },
  BROADCASTER_INVALID_INPUT: { status: 400, meaning: 'a field failed validation (including a stringified object that does not parse); the message names the field' },
  BROADCASTER_CHANNEL_RUNNING: { status: 409, meaning: 'the channel is running: stop it first (delete)' },
  BROADCASTER_CHANNEL_STOPPED: { status: 409, meaning: 'the channel is not running (rotate needs a running channel)' },
  BROADCASTER_ROTATE_NOT_DISK: { status: 409, meaning: 'rotate is refused outside disk buffer mode (a ram channel gets a fresh feed at each start)' },
  BROADCASTER_FEED_EXISTS: { status: 409, meaning: "the channel already published a feed under its own content key: a panel stream's key is attached before the channel's first start (add a new channel for that stream)" },
  BROADCASTER_PORT_IN_USE: { status: 409, meaning: "a push listener port is already taken by another channel's input" },
  BROADCASTER_FFMPEG: { status: 500, meaning: 'ffmpeg or ffprobe could not be run or failed (the message carries its last output line)' },
  BROADCASTER_ELOCKED: { status: 503, meaning: 'a one-shot command would write what the running broadcaster holds: use the control API, or stop the daemon first' },
  BROADCASTER_CLOSED: { status: 503, meaning: 'the broadcaster is shutting down' }
} as const satisfies ErrorTable

export type BroadcasterErrorCode = keyof typeof BROADCASTER_ERROR_CODES

export class BroadcasterError extends ArusError {
  declare readonly code: BroadcasterErrorCode
  constructor (code: BroadcasterErrorCode, message: string = BROADCASTER_ERROR_CODES[code].meaning) {
    super(code, message, { status: BROADCASTER_ERROR_CODES[code].status })
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

  static feedExists (id: string): BroadcasterError {
    return new BroadcasterError('BROADCASTER_FEED_EXISTS', `channel "${id}" already published a feed under its own content key: attach a panel stream's key before the channel's first start`)
  }

  static ffmpeg (message: string): BroadcasterError { return new BroadcasterError('BROADCASTER_FFMPEG', message) }
  static closed (): BroadcasterError { return new BroadcasterError('BROADCASTER_CLOSED') }
}
