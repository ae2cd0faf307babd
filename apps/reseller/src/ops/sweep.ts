import { z } from 'zod'
import { isArusError } from '@arus/service'
import type { ResellerCore } from '../core.js'
import { setPanelStatus } from '../accounts/panel-user.js'

/**
 * The expiry sweep (SWEEP_INTERVAL_SEC, POST /api/ops/sweep): an active account past its expiry
 * is disabled on the panel and marked expired; an expired one whose expiry moved ahead (a
 * renew whose panel step was cut short) is enabled again. An unreachable panel ends the run;
 * the rest wait for the next one.
 */

export const SweepReply = z.object({
  runs: z.number().int(),
  lastRunAt: z.number().nullable(),
  lastOkAt: z.number().nullable(),
  lastError: z.string().nullable(),
  disabled: z.number().int().describe('Accounts the last run disabled'),
  enabled: z.number().int(),
  failed: z.number().int(),
  running: z.boolean()
})
export type SweepState = z.infer<typeof SweepReply>

export function createSweeper (core: ResellerCore) {
  const state: SweepState = { runs: 0, lastRunAt: null, lastOkAt: null, lastError: null, disabled: 0, enabled: 0, failed: 0, running: false }
  let inFlight: Promise<SweepState> | null = null

  const runOnce = async (): Promise<SweepState> => {
    state.running = true
    let disabled = 0
    let enabled = 0
    let failed = 0
    let error: string | null = null
    const now = core.now()
    for (const [name, a] of core.accounts.entries()) {
      if (a.pending !== null) continue
      const expire = a.status === 'active' && a.expiresAt <= now
      const revive = a.status === 'expired' && a.expiresAt > now
      if (!expire && !revive) continue
      try {
        await core.accountLock.run(name, async () => {
          const cur = core.accounts.get(name)
          if (!cur || cur.pending !== null) return
          if (expire && cur.status === 'active' && cur.expiresAt <= core.now()) {
            await setPanelStatus(core, name, 'disabled')
            await core.accounts.update(name, (c) => ({ rec: c && { ...c, status: 'expired' } }))
            disabled++
            core.activity.record({ event: 'account.expired', account: name }, 'account expired: disabled on the panel')
          } else if (revive && cur.status === 'expired' && cur.expiresAt > core.now()) {
            await setPanelStatus(core, name, 'active')
            await core.accounts.update(name, (c) => ({ rec: c && { ...c, status: 'active' } }))
            enabled++
          }
        })
      } catch (err) {
        failed++
        error = (err as Error).message
        if (isArusError(err) && err.code === 'RESELLER_PANEL_UNREACHABLE') break
      }
    }
    Object.assign(state, { runs: state.runs + 1, lastRunAt: now, disabled, enabled, failed, lastError: error, running: false })
    if (error === null) state.lastOkAt = now
    else core.log.warn({ event: 'sweep.failed', failed, err: error }, 'expiry sweep: some accounts wait for the next run')
    return { ...state }
  }

  return {
    /** Runs now, or joins the run in progress. */
    run (): Promise<SweepState> {
      inFlight ??= runOnce().finally(() => { inFlight = null })
      return inFlight
    },
    state: (): SweepState => ({ ...state })
  }
}
export type Sweeper = ReturnType<typeof createSweeper>
