import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { expect } from 'vitest'
import { ENGINE_PROTOCOL_VERSION, EngineMessageSchema, INITIAL_HOST_STATE, applyEngineMessage, type HostState } from '@arus/sdk'
import type { Step } from './worklet-host.js'

const DIR = new URL('../../packages/sdk/ipc-fixtures/', import.meta.url)

/** A committed transcript (docs/engine-ipc.md "Transcript fixtures"). */
export interface Fixture {
  protocol: number
  name: string
  description: string
  /** One per worklet process (a restart starts a new session on the same data dir). */
  sessions: Array<{ steps: Step[]; state: HostState }>
}

// The order of these is fixed by the commands; tune progress and peer counts interleave freely.
const SIGNIFICANT_STATES = new Set(['ready', 'logged-in', 'playing'])
// A catalog edit (a rotate's new feedKey) may re-send 'streams': only the first one counts.
function significant (steps: Step[]): Step[] {
  let streams = false
  return steps.filter((step) => {
    if (!('receive' in step)) return true
    const m = step.receive
    if (m.type === 'streams') { const first = !streams; streams = true; return first }
    if (m.type === 'zap-prefetch') return false
    return m.type !== 'status' || SIGNIFICANT_STATES.has(m.state)
  })
}

/** The shape compared between a live run and its fixture: direction and kind of each step. */
function shape (steps: Step[]): string[] {
  return steps.map((s) => 'send' in s ? `> ${String(s.send.cmd)}` : 'sendRaw' in s ? '> (raw)' : 'sendOversized' in s ? '> (oversized)'
    : `< ${s.receive.type}${s.receive.type === 'status' ? `:${s.receive.state}` : ''}${'code' in s.receive ? `:${s.receive.code}` : ''}`)
}

export function hostState (steps: Step[]): HostState {
  return steps.reduce((st, s) => 'receive' in s ? applyEngineMessage(st, s.receive) : st, INITIAL_HOST_STATE)
}

/**
 * Every received message must match the message schema; the live run's significant steps must
 * have the shape of the committed fixture, whose own replay must give its recorded state.
 * ARUS_RECORD_FIXTURES=1 writes the fixture from this run instead.
 */
export function checkFixture (name: string, description: string, sessions: Step[][]): void {
  for (const steps of sessions) {
    for (const s of steps) if ('receive' in s) expect(EngineMessageSchema.safeParse(s.receive).success, JSON.stringify(s.receive).slice(0, 300)).toBe(true)
  }
  const live: Fixture = { protocol: ENGINE_PROTOCOL_VERSION, name, description, sessions: sessions.map((steps) => { const kept = significant(steps); return { steps: kept, state: hostState(kept) } }) }
  const file = new URL(`${name}.json`, DIR)
  if (process.env.ARUS_RECORD_FIXTURES === '1' || !existsSync(file)) {
    if (process.env.CI === 'true' && !existsSync(file)) throw new Error(`fixture ${name}.json is missing: record it with ARUS_RECORD_FIXTURES=1`)
    writeFileSync(file, JSON.stringify(live, null, 2) + '\n')
    return
  }
  const committed = JSON.parse(readFileSync(file, 'utf8')) as Fixture
  expect(committed.protocol).toBe(ENGINE_PROTOCOL_VERSION)
  expect(committed.sessions.map((s) => shape(s.steps))).toEqual(live.sessions.map((s) => shape(s.steps)))
  for (const s of committed.sessions) expect(hostState(s.steps)).toEqual(s.state)
}
