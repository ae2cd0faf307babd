import { describe, expect, it } from 'vitest'
import { buildOpenApi, configDocs, renderReference, replaceSection, routesWithoutReply } from '@arus/service'
import { GEN_DOCS_COMMAND, REFERENCES, REPO_ROOT } from '../../scripts/docs/references.js'

// Every daemon's generated reference (env, CLI, routes, errors tables and .env.example) must be
// what the kit's generator writes today, and every route must document its reply.
describe.each(REFERENCES.map((r) => [r.bin, r] as const))('%s reference', (_bin, ref) => {
  it('has its generated pages and .env.example up to date', async () => {
    for (const f of await renderReference(ref, REPO_ROOT)) {
      expect(f.current, `${f.path} is stale: run \`${GEN_DOCS_COMMAND}\``).toBe(f.fresh)
    }
  })

  it('documents every variable, command and error code', async () => {
    const files = await renderReference(ref, REPO_ROOT)
    const text = files.map((f) => f.current).join('\n')
    for (const d of configDocs(ref.envSchema)) expect(text).toContain(`| \`${d.name}\``)
    for (const code of Object.keys(ref.errors)) {
      if (ref.pages.some((p) => p.sections.includes('errors'))) expect(text).toContain(`| \`${code}\``)
    }
    expect(text).toMatch(/\| `run` \|/)
  })

  it('declares a reply schema (or a media type) for every route, so OpenAPI documents every reply', async () => {
    const routes = await ref.routes()
    // A daemon without a control API (the repeater: two status routes, described by hand) has no routes section.
    const documented = ref.pages.some((p) => p.sections.includes('routes'))
    expect(documented ? routes.length > 5 : routes.length === 0).toBe(true)
    expect(routesWithoutReply(routes)).toEqual([])
    // ...and the OpenAPI document built from the same table has a reply body for each.
    const doc = buildOpenApi(routes, { title: ref.bin, version: '1' }) as { paths: Record<string, Record<string, { responses: Record<string, { content?: unknown }> }>> }
    const bare = Object.entries(doc.paths).flatMap(([path, ops]) => Object.entries(ops)
      .filter(([, op]) => { const ok = Object.entries(op.responses).find(([code]) => /^2\d\d$/.test(code)); return ok === undefined || (ok[0] !== '204' && ok[1].content === undefined) })
      .map(([method]) => `${method.toUpperCase()} ${path}`))
    expect(bare).toEqual([])
  })
})

describe('the reference generator', () => {
  it('reports a route without a reply schema', () => {
    const route = { method: 'GET' as const, url: '/api/x', summary: 'x', auth: true }
    expect(routesWithoutReply([route])).toEqual(['GET /api/x'])
    expect(routesWithoutReply([{ ...route, status: 204 }, { ...route, produces: 'text/plain' }])).toEqual([])
  })

  it('refuses a page without its markers', () => {
    expect(() => replaceSection('no markers here', 'env', 'x', 'docs/x.md')).toThrow(/docs\/x\.md must contain exactly one "<!-- env:begin -->"/)
    expect(replaceSection('a <!-- env:begin -->old<!-- env:end --> b', 'env', 'new')).toBe('a <!-- env:begin -->\nnew\n<!-- env:end --> b')
  })
})
