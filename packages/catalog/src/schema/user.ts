import { z } from 'zod'
import {
  DEVICE_LABEL_MAX, ENC_PRIV_MAX_BYTES, ENC_PRIV_MIN_BYTES, MAX_DEVICES_LIMIT, RECORD_VERSION,
  SEALED_MAX_BYTES, SEALED_MIN_BYTES
} from '../constants.js'
import { Hex32, NonNegInt, hexBytes, hexRange } from './common.js'
import { StreamId } from './ids.js'
import { GroupId } from './group.js'

/** One enrolled device, kept compact since every login may rewrite the user record. */
const shape = {
  deviceId: Hex32,
  label: z.string().max(DEVICE_LABEL_MAX),
  enrolledAt: NonNegInt,
  expiresAt: NonNegInt.nullable(),
  tokenVersion: NonNegInt,
  status: z.literal('active')
}
const Device = z.strictObject(shape)
const DeviceLoose = z.object(shape)
export type UserDevice = z.infer<typeof Device>

const argonShape = { opslimit: z.int().min(1), memlimit: z.int().min(1) }
const Argon = z.strictObject(argonShape)
const ArgonLoose = z.object(argonShape)

/**
 * The login key schedule of `salt`/`verifier`/`encPriv`/`authPub` (docs/architecture.md "Login"):
 * absent on records from before issue 40 (schedule 1, so they stay byte-identical), 2 on every
 * record written since. Writers know only 1 (absent) and 2; readers take any later number so a
 * future schedule reads as "needs a newer SDK", not as a broken catalog.
 */
const KeyVersion = z.literal(2).optional()
const KeyVersionLoose = z.int().min(2).max(255).optional()

/** A grant group's key of generation `gen`, sealed to the user's `pub` (like a `wrapped` grant). */
const groupGrantShape = { gen: z.int().min(1), key: hexRange(SEALED_MIN_BYTES, SEALED_MAX_BYTES) }

function userShape (device: typeof Device | typeof DeviceLoose, argon: typeof Argon | typeof ArgonLoose, keyVersion: typeof KeyVersion | typeof KeyVersionLoose) {
  return {
    v: z.literal(RECORD_VERSION),
    keyVersion,
    salt: hexBytes(16),
    verifier: hexBytes(32),
    argon,
    pub: Hex32,
    encPriv: hexRange(ENC_PRIV_MIN_BYTES, ENC_PRIV_MAX_BYTES),
    authPub: Hex32,
    wrapped: z.record(StreamId, hexRange(SEALED_MIN_BYTES, SEALED_MAX_BYTES)),
    groups: z.record(GroupId, (keyVersion === KeyVersion ? z.strictObject : z.object)(groupGrantShape)).optional(),
    devices: z.array(device).max(MAX_DEVICES_LIMIT),
    tokenVersion: NonNegInt,
    maxDevices: z.int().min(1).max(MAX_DEVICES_LIMIT),
    status: z.enum(['active', 'disabled'])
  }
}

function uniqueDevices (rec: { devices: Array<{ deviceId: string }> }, ctx: z.RefinementCtx): void {
  const seen = new Set<string>()
  rec.devices.forEach((d, i) => {
    if (seen.has(d.deviceId)) ctx.addIssue({ code: 'custom', path: ['devices', i, 'deviceId'], message: 'duplicate deviceId' })
    seen.add(d.deviceId)
  })
}

/**
 * An account (`user/<username>`). Spec: /work/shared/spec/1-panel.md "User record".
 * `authPub` is the Ed25519 auth key derived from the password (proves it at session time),
 * `keyVersion` the key schedule it came from (absent = 1);
 * `wrapped[streamId]` is the stream key sealed to `pub` (manual grants; all grants on records
 * from before issue 43), `groups[groupId]` a grant group's key of generation `gen` sealed to
 * `pub` (the group's channel keys are in `grp/<groupId>`). A record with `groups` (even empty)
 * is in the grouped layout.
 */
export const UserRecord = z.strictObject(userShape(Device, Argon, KeyVersion)).superRefine(uniqueDevices)
export type UserRecord = z.infer<typeof UserRecord>

/** Read-side variant: same rules, unknown fields dropped instead of refused. */
export const UserRecordLoose = z.object(userShape(DeviceLoose, ArgonLoose, KeyVersionLoose)).superRefine(uniqueDevices)
