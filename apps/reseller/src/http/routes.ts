import { Readable } from 'node:stream'
import { z } from 'zod'
import { DeletedReply, requestAdmin, route, ServiceError, type FastifyInstance, type FastifyRequest } from '@arus/service'
import { callerOf, requireAdminTier, type Caller } from '../access.js'
import type { ResellerCore } from '../core.js'
import * as accounts from '../accounts/ops.js'
import {
  AccountDetail, AccountPasswordInput, AccountStatusInput, AccountView, AcctParams, ActivateInput, DeviceParams, GrantInput, GrantParams, ListAccountsQuery,
  MaxDevicesInput, PackagesInput, RenewInput, TrialInput
} from '../accounts/model.js'
import * as credits from '../ledger/ops.js'
import { topUp, WebhookBody, WebhookReply } from '../ledger/webhook.js'
import { CreatePrincipalInput, NameParams, PrincipalView, SetLimitsInput, SetPasswordInput, SetStatusInput } from '../principals/model.js'
import * as principals from '../principals/ops.js'
import { ReconcileReply, type Reconciler } from '../ops/reconcile.js'
import { SweepReply, type Sweeper } from '../ops/sweep.js'
import { status, StatusReply, system, SystemReply, type StatusDeps } from '../status.js'
import { createPanelCache } from '../panel/cache.js'

/** Every route of the spec's Reseller table (docs/reseller.md has the generated reference and the role table). */

export interface ResellerRouteDeps extends StatusDeps {
  core: ResellerCore
  sweeper: Sweeper
  reconciler: Reconciler
  webhookSecret: string | undefined
}

const WEBHOOK_URL = '/api/webhooks/credits'
const WEBHOOK_MAX_BYTES = 16 * 1024
const RAW = new WeakMap<FastifyRequest, Buffer>()

const MeView = PrincipalView.extend({ trialsToday: z.number().int() })
const StatusChangeReply = PrincipalView.extend({ accountsChanged: z.number().int(), accountsFailed: z.array(z.string()) })
const AccountList = z.object({ items: z.array(AccountView), total: z.number().int(), offset: z.number().int(), limit: z.number().int() })
const PrincipalDeleted = DeletedReply.extend({ reclaimed: z.number().int() })
const AccountDeleted = DeletedReply.extend({ refunded: z.number().int() })
const DevicesDeleted = DeletedReply.extend({ devices: z.number().int() })
const GrantReply = z.object({ changed: z.boolean(), account: AccountView })
const RevokeReply = z.object({ changed: z.boolean(), stillGranted: z.boolean(), coveredBy: z.unknown() })
const Passthrough = z.looseObject({})

export function resellerRoutes (app: FastifyInstance, d: ResellerRouteDeps): void {
  const { core } = d
  const who = (req: FastifyRequest): Caller => callerOf(core, requestAdmin(req)!.name)
  const cache = createPanelCache(core, 60_000)

  // The kit's config and backup routes are for admin tiers: snapshots name the whole tree and host paths.
  app.addHook('preHandler', async (req) => {
    const url = req.routeOptions.url ?? ''
    const admin = requestAdmin(req)
    if (admin !== undefined && (url.startsWith('/api/config') || url === '/api/backups')) requireAdminTier(who(req), 'config snapshots and backups')
  })

  // The webhook's HMAC covers the raw bytes: keep them before the JSON parser runs.
  app.addHook('preParsing', async (req, _reply, payload) => {
    if (req.routeOptions.url !== WEBHOOK_URL) return payload
    const chunks: Buffer[] = []
    let size = 0
    for await (const chunk of payload) {
      size += (chunk as Buffer).length
      if (size > WEBHOOK_MAX_BYTES) throw ServiceError.payloadTooLarge(WEBHOOK_MAX_BYTES)
      chunks.push(chunk as Buffer)
    }
    const raw = Buffer.concat(chunks)
    RAW.set(req, raw)
    return Readable.from([raw])
  })

  route(app, {
    method: 'POST', url: WEBHOOK_URL, auth: false, tag: 'webhook', summary: 'Top-up webhook: mints credits (HMAC in x-topup-signature over "<x-topup-timestamp>.<raw body>"; idempotent by id; 404 without WEBHOOK_SECRET)',
    description: `Body ${Object.keys(WebhookBody.shape).join(', ')}.`, response: WebhookReply
  }, async (_input, req) => topUp(core, d.webhookSecret, req.headers, RAW.get(req) ?? Buffer.alloc(0)))

  // --- self ---
  route(app, { method: 'GET', url: '/api/me', auth: true, tag: 'me', summary: 'Own record, balance and trials used today', response: MeView },
    async (_i, req) => principals.me(core, who(req)))
  route(app, { method: 'POST', url: '/api/me/password', auth: true, tag: 'me', summary: 'Rotate own password (ends own sessions)', body: SetPasswordInput, response: PrincipalView },
    async ({ body }, req) => principals.setOwnPassword(core, who(req), body.password))
  route(app, { method: 'GET', url: '/api/status', auth: true, tag: 'status', summary: 'Role-scoped KPIs: balance, active, expiring, trial; admins also principals, outstanding credits, panel reachability, last reconcile', response: StatusReply },
    async (_i, req) => status(d, who(req)))
  route(app, { method: 'GET', url: '/api/system', auth: true, tag: 'status', summary: 'Service, host and panel facts (admin tiers); a down panel fills panel.error', response: SystemReply },
    async (_i, req) => { requireAdminTier(who(req), 'GET /api/system'); return system(d) })

  // --- panel passthroughs ---
  route(app, { method: 'GET', url: '/api/panel/status', auth: true, tag: 'panel', summary: 'The panel\'s /api/status (admin tiers)', response: Passthrough },
    async (_i, req) => { requireAdminTier(who(req), 'GET /api/panel/status'); return core.panel.call('GET', '/api/status') })
  route(app, { method: 'GET', url: '/api/streams', auth: true, tag: 'panel', summary: 'The panel\'s catalog (cached 60 s)', response: Passthrough },
    async (_i, req) => { who(req); return cache.get('/api/streams') })
  route(app, { method: 'GET', url: '/api/packages', auth: true, tag: 'panel', summary: 'The panel\'s packages (cached 60 s)', response: Passthrough },
    async (_i, req) => { who(req); return cache.get('/api/packages') })

  // --- principals ---
  route(app, { method: 'GET', url: '/api/principals', auth: true, tag: 'principals', summary: 'Principals the caller sees (admin tiers: all; others: self and subtree)', response: z.object({ principals: z.array(PrincipalView) }) },
    async (_i, req) => principals.listPrincipals(core, who(req)))
  route(app, { method: 'POST', url: '/api/principals', auth: true, tag: 'principals', status: 201, summary: 'Create a principal under the caller', body: CreatePrincipalInput, response: PrincipalView },
    async ({ body }, req) => principals.createPrincipal(core, who(req), body))
  route(app, { method: 'GET', url: '/api/principals/:name', auth: true, tag: 'principals', summary: 'One principal (effective limits, balance)', params: NameParams, response: PrincipalView },
    async ({ params }, req) => principals.getPrincipal(core, who(req), params.name))
  route(app, { method: 'DELETE', url: '/api/principals/:name', auth: true, tag: 'principals', summary: 'Delete a principal without children or accounts; its balance is reclaimed to the caller', params: NameParams, response: PrincipalDeleted },
    async ({ params }, req) => principals.deletePrincipal(core, who(req), params.name))
  route(app, { method: 'POST', url: '/api/principals/:name/password', auth: true, tag: 'principals', summary: 'Set a managed principal\'s password (ends its sessions)', params: NameParams, body: SetPasswordInput, response: PrincipalView },
    async ({ params, body }, req) => principals.setPrincipalPassword(core, who(req), params.name, body.password))
  route(app, { method: 'POST', url: '/api/principals/:name/status', auth: true, tag: 'principals', summary: 'Suspend or resume; mode with-accounts also disables (or re-enables) its subtree\'s accounts on the panel', params: NameParams, body: SetStatusInput, response: StatusChangeReply },
    async ({ params, body }, req) => principals.setPrincipalStatus(core, who(req), params.name, body))
  route(app, { method: 'POST', url: '/api/principals/:name/limits', auth: true, tag: 'principals', summary: 'maxDevicesLimit (admin tiers) and trialDailyCap (supers too)', params: NameParams, body: SetLimitsInput, response: PrincipalView },
    async ({ params, body }, req) => principals.setPrincipalLimits(core, who(req), params.name, body))

  // --- credits ---
  route(app, { method: 'POST', url: '/api/credits/mint', auth: true, tag: 'credits', summary: 'Mint credits (admin tiers)', body: credits.MintInput, response: credits.CreditReply },
    async ({ body }, req) => credits.mint(core, who(req), body))
  route(app, { method: 'POST', url: '/api/credits/transfer', auth: true, tag: 'credits', summary: 'Give credits to a principal below the caller (402 beyond the balance)', body: credits.TransferInput, response: credits.CreditReply },
    async ({ body }, req) => credits.transfer(core, who(req), body))
  route(app, { method: 'POST', url: '/api/credits/reclaim', auth: true, tag: 'credits', summary: 'Take credits back from a managed principal (402 beyond its balance)', body: credits.ReclaimInput, response: credits.CreditReply },
    async ({ body }, req) => credits.reclaim(core, who(req), body))
  route(app, { method: 'POST', url: '/api/credits/adjust', auth: true, tag: 'credits', summary: 'Signed correction with a required note (admin tiers)', body: credits.AdjustInput, response: credits.CreditReply },
    async ({ body }, req) => credits.adjust(core, who(req), body))
  route(app, { method: 'GET', url: '/api/ledger', auth: true, tag: 'credits', summary: 'Ledger lines, newest first (principal, account, type, before, limit); non-admins see their subtree\'s, without the balances of principals outside it', query: credits.LedgerQueryInput, response: credits.LedgerReply },
    async ({ query }, req) => credits.queryLedger(core, who(req), query))

  // --- accounts ---
  route(app, { method: 'GET', url: '/api/accounts', auth: true, tag: 'accounts', summary: 'Accounts in scope: q, filter, owner, sort, dir, offset, limit (default 50, max 500)', query: ListAccountsQuery, response: AccountList },
    async ({ query }, req) => accounts.listAccounts(core, who(req), query))
  route(app, { method: 'POST', url: '/api/accounts', auth: true, tag: 'accounts', status: 201, summary: 'Activate an account: months × CREDITS_PER_MONTH debited, refunded if the panel fails', body: ActivateInput, response: AccountView },
    async ({ body }, req) => accounts.activateAccount(core, who(req), body))
  route(app, { method: 'GET', url: '/api/accounts/:acct', auth: true, tag: 'accounts', summary: 'One account with its live panel state', params: AcctParams, response: AccountDetail },
    async ({ params }, req) => accounts.getAccount(core, who(req), params.acct))
  route(app, { method: 'DELETE', url: '/api/accounts/:acct', auth: true, tag: 'accounts', summary: 'Delete on the panel; the owner gets whole remaining months back unless an admin tier deletes', params: AcctParams, response: AccountDeleted },
    async ({ params }, req) => accounts.deleteAccount(core, who(req), params.acct))
  route(app, { method: 'POST', url: '/api/accounts/:acct/renew', auth: true, tag: 'accounts', summary: 'Renew (the caller pays); from the later of now and expiry; a trial becomes paid', params: AcctParams, body: RenewInput, response: AccountView },
    async ({ params, body }, req) => accounts.renewAccount(core, who(req), params.acct, body.months))
  route(app, { method: 'POST', url: '/api/accounts/:acct/status', auth: true, tag: 'accounts', summary: 'Suspend (disabled) or resume (active; an expired account needs a renew)', params: AcctParams, body: AccountStatusInput, response: AccountView },
    async ({ params, body }, req) => accounts.setAccountStatus(core, who(req), params.acct, body.status))
  route(app, { method: 'POST', url: '/api/accounts/:acct/password', auth: true, tag: 'accounts', summary: 'Set the viewer\'s password on the panel', params: AcctParams, body: AccountPasswordInput, response: AccountView },
    async ({ params, body }, req) => accounts.setAccountPassword(core, who(req), params.acct, body.password))
  route(app, { method: 'POST', url: '/api/accounts/:acct/max-devices', auth: true, tag: 'accounts', summary: 'Set the device limit (admin tiers)', params: AcctParams, body: MaxDevicesInput, response: AccountView },
    async ({ params, body }, req) => accounts.setAccountMaxDevices(core, who(req), params.acct, body.maxDevices))
  route(app, { method: 'POST', url: '/api/accounts/:acct/grants', auth: true, tag: 'accounts', summary: 'Grant a stream', params: AcctParams, body: GrantInput, response: GrantReply },
    async ({ params, body }, req) => accounts.grantStream(core, who(req), params.acct, body.streamId))
  route(app, { method: 'DELETE', url: '/api/accounts/:acct/grants/:streamId', auth: true, tag: 'accounts', summary: 'Remove a manual grant; stillGranted: true when a package re-seals it', params: GrantParams, response: RevokeReply },
    async ({ params }, req) => accounts.revokeStream(core, who(req), params.acct, params.streamId))
  route(app, { method: 'POST', url: '/api/accounts/:acct/packages', auth: true, tag: 'accounts', summary: 'Replace the account\'s packages (no credit impact; the reconcile re-asserts them)', params: AcctParams, body: PackagesInput, response: AccountView },
    async ({ params, body }, req) => accounts.setAccountPackages(core, who(req), params.acct, body.packages))
  route(app, { method: 'POST', url: '/api/accounts/:acct/logout-all', auth: true, tag: 'accounts', summary: 'End every session of the account', params: AcctParams, response: AccountView },
    async ({ params }, req) => accounts.logoutAll(core, who(req), params.acct))
  route(app, { method: 'GET', url: '/api/accounts/:acct/devices', auth: true, tag: 'accounts', summary: 'Enrolled devices (from the panel)', params: AcctParams, response: z.object({ devices: z.array(z.unknown()) }) },
    async ({ params }, req) => accounts.listDevices(core, who(req), params.acct))
  route(app, { method: 'DELETE', url: '/api/accounts/:acct/devices', auth: true, tag: 'accounts', summary: 'Drop every enrollment', params: AcctParams, response: DevicesDeleted },
    async ({ params }, req) => accounts.removeDevices(core, who(req), params.acct))
  route(app, { method: 'DELETE', url: '/api/accounts/:acct/devices/:id', auth: true, tag: 'accounts', summary: 'Drop one enrollment', params: DeviceParams, response: DeletedReply },
    async ({ params }, req) => accounts.removeDevice(core, who(req), params.acct, params.id))
  route(app, { method: 'POST', url: '/api/trials', auth: true, tag: 'accounts', status: 201, summary: 'A free TRIAL_HOURS trial, at most trialDailyCap per principal per UTC day', body: TrialInput, response: AccountView },
    async ({ body }, req) => accounts.createTrial(core, who(req), body))

  // --- operations (admin tiers) ---
  route(app, { method: 'POST', url: '/api/ops/sweep', auth: true, tag: 'ops', summary: 'Run the expiry sweep now (admin tiers)', response: SweepReply },
    async (_i, req) => { requireAdminTier(who(req), 'the sweep'); return d.sweeper.run() })
  route(app, { method: 'GET', url: '/api/ops/reconcile', auth: true, tag: 'ops', summary: 'The last reconcile\'s result (admin tiers)', response: ReconcileReply },
    async (_i, req) => { requireAdminTier(who(req), 'the reconcile'); return d.reconciler.state() })
  route(app, { method: 'POST', url: '/api/ops/reconcile', auth: true, tag: 'ops', summary: 'Run a reconcile now (admin tiers)', response: ReconcileReply },
    async (_i, req) => { requireAdminTier(who(req), 'the reconcile'); return d.reconciler.run() })
}
