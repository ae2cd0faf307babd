import { z } from 'zod'

/** Roles high to low (spec 2 "Reseller resources"). */
export const ROLES = ['admin', 'co-admin', 'super', 'reseller'] as const
export const Role = z.enum(ROLES)
export type Role = z.infer<typeof Role>

export const PrincipalName = z.string().regex(/^(?!__proto__$)[A-Za-z0-9_.@-]{1,64}$/, '1-64 letters, digits, _ . - @ (not __proto__)').describe('Principal name')
export const Password = z.string().min(8, 'at least 8 characters').max(1024).describe('Password (8-1024 characters)')
export const PrincipalStatus = z.enum(['active', 'disabled'])
const MaxDevicesLimit = z.number().int().min(1).max(100)
const TrialDailyCap = z.number().int().min(0).max(100_000)
const hex = (bytes: number) => z.string().regex(new RegExp(`^[0-9a-f]{${bytes * 2}}$`))

/** A principal as stored in private/principals.json (the verifier never leaves this file). */
export const PrincipalRecord = z.object({
  role: Role,
  parent: z.string().nullable(),
  salt: hex(16),
  verifier: hex(32),
  argon: z.object({ opslimit: z.number().int(), memlimit: z.number().int() }),
  tokenVersion: z.number().int().min(0),
  maxDevicesLimit: MaxDevicesLimit.nullable(),
  trialDailyCap: TrialDailyCap.nullable(),
  note: z.string().max(500),
  status: PrincipalStatus,
  createdAt: z.number()
})
export type PrincipalRecord = z.infer<typeof PrincipalRecord>
export const PrincipalsFile = z.object({ v: z.literal(1), principals: z.record(z.string(), PrincipalRecord) })

/** POST /api/principals: the caller becomes the parent. */
export const CreatePrincipalInput = z.strictObject({
  username: PrincipalName,
  password: Password,
  role: z.enum(['co-admin', 'super', 'reseller']).describe('co-admin (root admin only), super (admin tiers), reseller (admin tiers and supers)'),
  maxDevicesLimit: MaxDevicesLimit.nullable().optional().describe('Devices per account of this principal\'s accounts; null/absent inherits up the chain (admin tiers only)'),
  trialDailyCap: TrialDailyCap.nullable().optional().describe('Trials per UTC day; null/absent = TRIAL_DAILY_CAP_DEFAULT'),
  note: z.string().max(500).optional()
})
export const SetPasswordInput = z.strictObject({ password: Password })
export const SetStatusInput = z.strictObject({
  status: PrincipalStatus,
  mode: z.enum(['panel-only', 'with-accounts']).default('panel-only').describe('panel-only: only the principal\'s sign-in; with-accounts: also every account of its subtree on the panel (resume re-enables those it disabled)')
})
export const SetLimitsInput = z.strictObject({
  maxDevicesLimit: MaxDevicesLimit.nullable().optional().describe('null inherits up the chain (admin tiers only)'),
  trialDailyCap: TrialDailyCap.nullable().optional().describe('null = TRIAL_DAILY_CAP_DEFAULT')
}).refine((v) => v.maxDevicesLimit !== undefined || v.trialDailyCap !== undefined, 'give maxDevicesLimit or trialDailyCap')
export const NameParams = z.strictObject({ name: PrincipalName })

/** What every principal route answers (never the verifier). */
export const PrincipalView = z.object({
  username: z.string(),
  role: Role,
  parent: z.string().nullable(),
  status: PrincipalStatus,
  /** Disabled through an ancestor (its sign-in is refused too). */
  effectiveStatus: PrincipalStatus,
  balance: z.number().int(),
  maxDevicesLimit: z.number().int(),
  maxDevicesLimitInherited: z.boolean(),
  trialDailyCap: z.number().int(),
  trialDailyCapInherited: z.boolean(),
  note: z.string(),
  children: z.number().int(),
  accounts: z.number().int(),
  createdAt: z.number()
})
export type PrincipalView = z.infer<typeof PrincipalView>
