import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { z } from 'zod'
import { BackendError } from '../backend.js'
import { configuredServices } from '../config.js'
import { ToolFailure, type ToolDef } from '../tool.js'

/** diagnose_healthz and diagnose_symptom (spec 2 "Tool groups": diagnose). */

export function diagnoseTools (): ToolDef[] {
  return [
    {
      name: 'diagnose_healthz',
      group: 'diagnose',
      klass: 'R',
      title: 'Every backend\'s /healthz in one answer',
      description: 'GET /healthz of every configured backend (no login): up, its fields, or why it is unreachable',
      input: z.strictObject({}),
      output: z.object({ services: z.record(z.string(), z.object({ ok: z.boolean(), status: z.number().int(), health: z.unknown().optional(), error: z.string().optional() })) }),
      async run (ctx) {
        const services: Record<string, { ok: boolean; status: number; health?: unknown; error?: string }> = {}
        for (const s of configuredServices(ctx.config)) {
          try {
            const r = await ctx.backends[s]!.health()
            services[s] = { ok: r.status === 200, status: r.status, health: r.body }
          } catch (err) {
            services[s] = { ok: false, status: 0, error: err instanceof BackendError ? err.message : (err as Error).message }
          }
        }
        return { data: { services } }
      }
    },
    {
      name: 'diagnose_symptom',
      group: 'diagnose',
      klass: 'R',
      title: 'Likely causes, checks and tools for a symptom',
      description: 'Matches a symptom ("viewers buffer", "login fails", "channel shows slate", ...) against the runbook (docs/runbook.md) and returns the likely causes, the checks to make and the tools to call',
      input: z.strictObject({ symptom: z.string().min(3).max(500) }),
      output: z.object({ matches: z.array(z.object({ symptom: z.string(), causes: z.array(z.string()), checks: z.array(z.string()), tools: z.array(z.string()), score: z.number() })) }),
      async run (ctx, a) {
        const entries = parseRunbook(await readFile(join(ctx.docsDir, 'runbook.md'), 'utf8').catch(() => { throw new ToolFailure(`no runbook.md in ${ctx.docsDir}`) }))
        const words = terms(a.symptom as string)
        const scored = entries.map((e) => ({ ...e, score: overlap(words, terms(`${e.symptom} ${e.keywords}`)) })).filter((e) => e.score > 0).sort((x, y) => y.score - x.score).slice(0, 3)
        return { data: { matches: scored.map(({ keywords: _k, ...e }) => e) } }
      }
    }
  ]
}

export interface RunbookEntry { symptom: string; keywords: string; causes: string[]; checks: string[]; tools: string[] }

const STOP = new Set(['the', 'a', 'an', 'is', 'are', 'of', 'to', 'and', 'or', 'in', 'on', 'for', 'it', 'my', 'no', 'not', 'with', 'does', 'do', 'cannot', 'can'])
export function terms (s: string): Set<string> {
  return new Set(s.toLowerCase().split(/[^a-z0-9]+/).filter((w) => w.length > 1 && !STOP.has(w)).map((w) => w.replace(/(ing|es|s)$/, '')))
}
export function overlap (a: Set<string>, b: Set<string>): number {
  let n = 0
  for (const w of a) if (b.has(w)) n++
  return n
}

/** `## <symptom>` sections with `Keywords:`, `Causes:`, `Checks:` and `Tools:` lists. */
export function parseRunbook (text: string): RunbookEntry[] {
  const out: RunbookEntry[] = []
  for (const section of text.split(/^## /m).slice(1)) {
    const [head = '', ...rest] = section.split('\n')
    const e: RunbookEntry = { symptom: head.trim(), keywords: '', causes: [], checks: [], tools: [] }
    let list: string[] | null = null
    for (const line of rest) {
      const label = /^(Keywords|Causes|Checks|Tools):\s*(.*)$/.exec(line.trim())
      if (label) {
        if (label[1] === 'Keywords') { e.keywords = label[2]!; list = null } else list = label[1] === 'Causes' ? e.causes : label[1] === 'Checks' ? e.checks : e.tools
        continue
      }
      const item = /^[-*]\s+(.*)$/.exec(line.trim())
      if (item && list) list.push(item[1]!)
    }
    out.push(e)
  }
  return out
}
