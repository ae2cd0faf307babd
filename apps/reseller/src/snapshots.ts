import { z } from 'zod'
import { createConfigSnapshots, type ConfigSection, type ConfigSnapshots, type SectionPlan } from '@arus/config-snapshots'
import type { Activity, Logger } from '@arus/service'
import type { ResellerConfig } from './config.js'
import type { AccountStore } from './accounts/store.js'
import type { PrincipalStore } from './principals/store.js'

/**
 * The reseller's config snapshots are export-only (spec 2: "shared config and backup routes —
 * export-only"): the principals tree (without verifiers) and the accounts, for the record and
 * for an operator's own tooling. Money lives in the ledger, whose history a restore could not
 * honestly rewind, so plan, restore and template import answer 409 CONFIG_RESTORE_UNSUPPORTED.
 */
const PrincipalsSection = z.record(z.string(), z.object({
  role: z.string(), parent: z.string().nullable(), maxDevicesLimit: z.number().nullable(), trialDailyCap: z.number().nullable(), note: z.string(), status: z.string(), createdAt: z.number()
}))
const AccountsSection = z.record(z.string(), z.object({
  owner: z.string(), createdAt: z.number(), expiresAt: z.number(), months: z.number(), trial: z.boolean(), packages: z.array(z.string()).nullable(),
  manualGrants: z.array(z.string()), maxDevices: z.number(), status: z.string()
}))

const noRestore = async (): Promise<SectionPlan> => ({ added: [], changed: [], leftAlone: [], removed: [], skipped: [], warnings: ['export-only'] })

export function resellerSnapshots (config: ResellerConfig, dir: string, parts: { principals: PrincipalStore; accounts: AccountStore; log: Logger; activity: Activity }): ConfigSnapshots {
  const principals: ConfigSection<z.infer<typeof PrincipalsSection>> = {
    name: 'principals',
    schema: PrincipalsSection,
    describe: 'principals: role, parent, limits, note, status (no password verifiers; export-only)',
    restoreSupported: false,
    async export () {
      return Object.fromEntries(parts.principals.entries().map(([n, r]) => [n, { role: r.role, parent: r.parent, maxDevicesLimit: r.maxDevicesLimit, trialDailyCap: r.trialDailyCap, note: r.note, status: r.status, createdAt: r.createdAt }]))
    },
    toTemplate: (data) => ({ data, omitted: [] }),
    apply: noRestore
  }
  const accounts: ConfigSection<z.infer<typeof AccountsSection>> = {
    name: 'accounts',
    schema: AccountsSection,
    describe: 'accounts: owner, expiry, months, packages, grants, status (snapshot only; export-only)',
    snapshotOnly: true,
    restoreSupported: false,
    async export () {
      return Object.fromEntries(parts.accounts.entries().map(([n, a]) => [n, { owner: a.owner, createdAt: a.createdAt, expiresAt: a.expiresAt, months: a.months, trial: a.trial, packages: a.packages, manualGrants: a.manualGrants, maxDevices: a.maxDevices, status: a.status }]))
    },
    apply: noRestore
  }
  return createConfigSnapshots({
    service: 'reseller',
    dir,
    keep: config.CONFIG_SNAPSHOT_KEEP,
    ...(config.BACKUP_DIR ? { backupDir: config.BACKUP_DIR } : {}),
    sections: [principals as ConfigSection, accounts as ConfigSection],
    restoreSupported: false,
    log: parts.log,
    activity: parts.activity
  })
}
