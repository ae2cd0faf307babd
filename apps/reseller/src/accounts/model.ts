import { z } from 'zod'
import { StreamId, Username } from '@arus/catalog'
import { PrincipalName } from '../principals/model.js'

/** An account name is a panel username (the panel's rule). */
export const AccountName = Username.describe('Account (panel username)')
/** The panel's package name rule. */
const PackageName = z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/, '1-64 letters, digits, _ . -')
const AccountPassword = z.string().min(1).max(1024).describe('The viewer\'s password (sent to the panel; never stored here)')
const Months = z.number().int().min(1).max(120)
const MaxDevices = z.number().int().min(1).max(100)

export const AccountStatus = z.enum(['active', 'disabled', 'expired'])
export type AccountStatus = z.infer<typeof AccountStatus>

/** An operation in progress: the ledger line is its commit point; a reconcile settles one cut by a crash. */
export const Pending = z.discriminatedUnion('op', [
  /** cleanup: a failed activation may have left a panel user: the settle deletes it. */
  z.object({ op: z.literal('activate'), at: z.number(), by: z.string(), cleanup: z.boolean(), after: z.number().int().min(0).describe('ledger seq when reserved: its lines come after') }),
  z.object({ op: z.literal('delete'), at: z.number(), by: z.string(), refund: z.number().int().min(0) })
])
export type Pending = z.infer<typeof Pending>

/** accounts.json entry (no secrets: the password lives only on the panel, as its verifier). */
export const AccountRecord = z.object({
  owner: z.string(),
  createdAt: z.number(),
  expiresAt: z.number(),
  months: z.number().int().min(0),
  trial: z.boolean(),
  packages: z.array(z.string()).nullable(),
  manualGrants: z.array(z.string()),
  maxDevices: z.number().int(),
  status: AccountStatus,
  /** The principal whose with-accounts suspension disabled it (resume re-enables only those). */
  suspendedBy: z.string().nullable(),
  /** The last ledger seq applied to this account. */
  seq: z.number().int().min(0),
  pending: Pending.nullable()
})
export type AccountRecord = z.infer<typeof AccountRecord>
export const AccountsFile = z.object({ v: z.literal(1), accounts: z.record(z.string(), AccountRecord) })

export const ActivateInput = z.strictObject({
  name: AccountName,
  password: AccountPassword,
  months: Months,
  maxDevices: MaxDevices.optional().describe('admin tiers only (403 otherwise); default: the owner\'s effective maxDevicesLimit'),
  grants: z.array(StreamId).max(1000).optional().describe('Manual stream grants'),
  packages: z.array(PackageName).max(100).optional().describe('Replaces the panel\'s default packages (no credit impact)')
})
export const TrialInput = z.strictObject({ name: AccountName, password: AccountPassword, maxDevices: MaxDevices.optional() })
export const RenewInput = z.strictObject({ months: Months })
export const AccountStatusInput = z.strictObject({ status: z.enum(['active', 'disabled']) })
export const AccountPasswordInput = z.strictObject({ password: AccountPassword })
export const MaxDevicesInput = z.strictObject({ maxDevices: MaxDevices })
export const GrantInput = z.strictObject({ streamId: StreamId })
export const PackagesInput = z.strictObject({ packages: z.array(PackageName).max(100) })
export const AcctParams = z.strictObject({ acct: AccountName })
export const GrantParams = z.strictObject({ acct: AccountName, streamId: StreamId })
export const DeviceParams = z.strictObject({ acct: AccountName, id: z.string().min(1).max(128) })

export const ACCOUNT_FILTERS = ['active', 'disabled', 'expiring', 'trial'] as const
export const ACCOUNT_SORTS = ['name', 'expires', 'created', 'status', 'owner'] as const
export const ListAccountsQuery = z.strictObject({
  q: z.string().max(64).optional().describe('Case-insensitive substring of the name or owner'),
  filter: z.enum(ACCOUNT_FILTERS).optional().describe('active, disabled (disabled or expired), expiring (active, expires within 7 days), trial'),
  owner: PrincipalName.optional(),
  sort: z.enum(ACCOUNT_SORTS).default('name'),
  dir: z.enum(['asc', 'desc']).default('asc'),
  offset: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(500).default(50)
})

/** Days within which an active account counts as expiring. */
export const EXPIRING_DAYS = 7

export const AccountView = z.object({
  name: z.string(),
  owner: z.string(),
  status: z.union([AccountStatus, z.literal('pending')]),
  trial: z.boolean(),
  createdAt: z.number(),
  expiresAt: z.number(),
  months: z.number().int(),
  packages: z.array(z.string()).nullable(),
  manualGrants: z.array(z.string()),
  maxDevices: z.number().int(),
  suspendedBy: z.string().nullable()
})
export type AccountView = z.infer<typeof AccountView>

/** The panel's side of an account (GET /api/accounts/:acct): null with panelError when it could not be read. */
export const PanelUserState = z.looseObject({
  username: z.string(),
  status: z.string(),
  tokenVersion: z.number(),
  maxDevices: z.number(),
  devices: z.array(z.unknown()),
  grants: z.array(z.string()),
  manualGrants: z.array(z.string()),
  packages: z.array(z.string())
})
export type PanelUserState = z.infer<typeof PanelUserState>
export const AccountDetail = AccountView.extend({ panel: PanelUserState.nullable(), panelError: z.string().nullable() })
