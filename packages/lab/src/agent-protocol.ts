import { z } from 'zod'
import type { PlayerModelStats } from './player-model.js'

/** One app instance an agent runs. */
export const AgentViewer = z.strictObject({
  name: z.string().min(1).max(64),
  user: z.string().min(1),
  password: z.string().min(1),
  channel: z.string().min(1),
  uploadPolicy: z.enum(['reseed', 'client-only']).default('reseed'),
  storeDir: z.string().min(1),
  /** The SDK's swarm.warmDial (default on). */
  warmDial: z.boolean().default(true)
})
export type AgentViewer = z.infer<typeof AgentViewer>

/** The commands an agent reads, one JSON object per line. */
export const AgentCommand = z.discriminatedUnion('op', [
  z.strictObject({
    op: z.literal('start'),
    panelKey: z.string().regex(/^[0-9a-f]{64}$/),
    bootstrap: z.array(z.strictObject({ host: z.string(), port: z.number().int().min(1).max(65535) })).min(1),
    viewers: z.array(AgentViewer).min(1).max(32)
  }),
  z.strictObject({ op: z.literal('report'), id: z.number().int() }),
  z.strictObject({ op: z.literal('stop'), id: z.number().int(), names: z.array(z.string()).optional() }),
  z.strictObject({ op: z.literal('exit') })
])
export type AgentCommand = z.infer<typeof AgentCommand>

/** One app instance's state in a report. */
export interface ViewerReport {
  name: string
  publicKey: string | null
  error: string | null
  /** ms after the app started: connect() done, login done, resolve done (null before). */
  phases: { connect: number | null; login: number | null; resolve: number | null }
  /** The SDK's own login phases (diagnostics().lastLogin). */
  lastLogin: { totalMs: number; phases: Array<{ name: string; startMs: number; ms: number }> } | null
  peers: number
  bytesByPeer: Record<string, { downloaded: number; uploaded: number; remote: string | null }>
  model: PlayerModelStats | null
  /** The agent process's RSS (shared by its instances). */
  rssBytes: number
}
