import { readdir, readFile } from 'node:fs/promises'
import { join, relative } from 'node:path'
import { z } from 'zod'
import type { ToolDef } from '../tool.js'
import { terms } from './diagnose.js'

/** docs_search over the docs folder (docsDir; default the repository's docs/). */

export async function docFiles (dir: string): Promise<string[]> {
  const out: string[] = []
  const walk = async (d: string, depth: number) => {
    if (depth > 3) return
    for (const e of await readdir(d, { withFileTypes: true }).catch(() => [])) {
      if (e.name.startsWith('.')) continue
      if (e.isDirectory()) await walk(join(d, e.name), depth + 1)
      else if (e.isFile() && e.name.endsWith('.md')) out.push(relative(dir, join(d, e.name)))
    }
  }
  await walk(dir, 0)
  return out.sort()
}

export function docsTools (): ToolDef[] {
  return [{
    name: 'docs_search',
    group: 'docs',
    klass: 'R',
    title: 'Search the operator docs',
    description: 'Finds the sections of the docs (deploy, panel, broadcaster, library, reseller, errors, runbook, ...) that best match the query; read a whole page as the resource mcp://svc/docs/<path>',
    input: z.strictObject({ query: z.string().min(2).max(300), limit: z.number().int().min(1).max(20).optional() }),
    output: z.object({ results: z.array(z.object({ path: z.string(), uri: z.string(), heading: z.string(), excerpt: z.string(), score: z.number() })) }),
    async run (ctx, a) {
      const want = terms(a.query as string)
      const results: Array<{ path: string; uri: string; heading: string; excerpt: string; score: number }> = []
      for (const path of await docFiles(ctx.docsDir)) {
        const text = await readFile(join(ctx.docsDir, path), 'utf8')
        for (const section of text.split(/^(?=#{1,3} )/m)) {
          const heading = section.split('\n')[0]!.replace(/^#+\s*/, '').trim()
          const words = section.toLowerCase().split(/[^a-z0-9]+/).map((w) => w.replace(/(ing|es|s)$/, ''))
          let score = 0
          for (const w of words) if (want.has(w)) score++
          for (const w of terms(heading)) if (want.has(w)) score += 5
          if (score > 0) results.push({ path, uri: `mcp://svc/docs/${path}`, heading, excerpt: section.slice(0, 600).trim(), score })
        }
      }
      results.sort((x, y) => y.score - x.score)
      return { data: { results: results.slice(0, (a.limit as number | undefined) ?? 5) } }
    }
  }]
}
