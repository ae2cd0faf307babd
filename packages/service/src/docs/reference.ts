import { readFile, writeFile } from 'node:fs/promises'
import { Readable, Writable } from 'node:stream'
import type { Command } from 'commander'
import { z } from 'zod'
import type { CliIO } from '../cli-io.js'
import { configDocs, type ConfigDoc } from '../config.js'
import type { FastifyInstance } from 'fastify'
import { routeTable, type RouteInfo } from '../http/routes.js'

/**
 * One generator for every daemon's reference pages: the environment table (from the env
 * schema), the CLI table (from the commander program), the route table (from the kit's
 * route table, request and reply fields from their zod schemas), the error table, and the
 * whole `.env.example`. A daemon describes itself once ({@link DaemonReference}); the root
 * script `scripts/gen-docs.ts` writes the pages and `test/docs/reference.test.ts` fails
 * while one is stale.
 */

/** A stable error table: code → HTTP status and meaning (the shape every package uses). */
export type ErrorTable = Readonly<Record<string, { readonly status: number; readonly meaning: string }>>

/** The generated sections a page can hold, each between `<!-- name:begin -->` and `<!-- name:end -->`. */
export type ReferenceSection = 'env' | 'cli' | 'routes' | 'errors'

/** Everything the generator needs to know about one daemon. */
export interface DaemonReference {
  /** The binary name (`arus-panel`). */
  bin: string
  envSchema: z.ZodObject<z.ZodRawShape>
  /** Builds the commander program on the given (silent) streams. */
  program(io: CliIO): Command
  /** The HTTP route table (a server built with stub collaborators, closed afterwards). */
  routes(): Promise<readonly RouteInfo[]>
  /** The daemon's own error codes. */
  errors: ErrorTable
  /** Pages (repository-relative paths) and the sections each carries. */
  pages: ReadonlyArray<{ path: string; sections: readonly ReferenceSection[] }>
  /** The daemon's `.env.example` (repository-relative), generated whole. */
  envExample: { path: string; intro: string }
}

/** A markdown table cell: one line, pipes and angle brackets escaped. */
export function mdCell (text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').replace(/</g, '&lt;').replace(/>/g, '&gt;').trim()
}

/** An inline code span that survives backticks in `text`. */
export function mdCode (text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``
}

/** A markdown table; cells are escaped with {@link mdCell} (code spans are written before). */
export function mdTable (header: readonly string[], rows: ReadonlyArray<readonly string[]>): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map((c) => c.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim()).join(' | ')} |`)
  ].join('\n')
}

function envDefault (d: ConfigDoc): string {
  if (d.default === undefined) return d.required ? '**required**' : '(unset)'
  return d.default === '' ? '(empty)' : mdCode(d.default)
}

/** One row per variable of `schema`, in declaration order. */
export function renderEnvTable (schema: z.ZodObject<z.ZodRawShape>): string {
  return mdTable(['Variable', 'Default', 'Type', 'Meaning'], configDocs(schema).map((d) => [
    mdCode(d.name) + (d.secret ? ' (secret)' : ''), envDefault(d), d.type, d.description
  ]))
}

/** A silent CLI io for building programs to inspect. */
export function silentIO (): CliIO {
  const sink = new Writable({ write (_chunk, _encoding, callback) { callback() } })
  return { stdout: sink, stderr: sink, stdin: Readable.from([]), env: {} }
}

function commandRows (bin: string, cmd: Command, prefix: string): string[][] {
  const name = `${prefix}${cmd.name()}`
  if (cmd.commands.length > 0) return cmd.commands.flatMap((sub) => commandRows(bin, sub, `${name} `))
  const options = cmd.options.map((o) => {
    const parts = [mdCode(o.flags)]
    if (o.description) parts.push(o.description)
    if (o.defaultValue !== undefined) parts.push(`(default ${mdCode(String(o.defaultValue))})`)
    return parts.join(' ')
  }).join('; ')
  return [[mdCode(name), mdCode(`${bin} ${name} ${cmd.usage()}`.trim()), cmd.description(), options || '—']]
}

/** One row per command (a group's subcommands each get a row), then the global options. */
export function renderCliTable (bin: string, program: Command): string {
  const rows = program.commands.flatMap((cmd) => commandRows(bin, cmd, ''))
  const globals = program.options.map((o) => `${mdCode(o.flags)} ${o.description}`.trim()).join('; ')
  return `${mdTable(['Command', 'Usage', 'Description', 'Options'], rows)}\n\nGlobal options (before the command): ${globals}.`
}

function fields (schema: z.ZodType | undefined, io: 'input' | 'output'): string {
  if (schema === undefined) return ''
  const js = z.toJSONSchema(schema, { io, unrepresentable: 'any' }) as { properties?: Record<string, unknown>; required?: string[] }
  const required = new Set(js.required ?? [])
  return Object.keys(js.properties ?? {}).map((k) => io === 'output' || required.has(k) ? k : `${k}?`).join(', ')
}

/** One row per route: method, path, auth, summary, request fields and the success reply's fields. */
export function renderRoutesTable (routes: readonly RouteInfo[]): string {
  return mdTable(['Method', 'Path', 'Auth', 'What it does', 'Request', 'Success'], routes.map((r) => {
    const request = [
      r.query ? `query: ${fields(r.query, 'input')}` : '',
      r.body ? `{${fields(r.body, 'input')}}` : '',
      r.rawBody ? `raw ${r.rawBody.contentTypes.join(', ')} (≤ ${r.rawBody.maxBytes / 1048576} MiB)` : ''
    ].filter(Boolean).join('; ') || '—'
    const reply = `${r.status ?? 200}` + (r.produces ? ` ${r.produces}` : r.response ? ` {${fields(r.response, 'output')}}` : '')
    return [mdCode(r.method), mdCode(r.url), r.auth ? 'admin' : 'none', mdCell(r.summary), mdCell(request), mdCell(reply)]
  }))
}

/** One row per code: code, HTTP status, meaning. */
export function renderErrorsTable (errors: ErrorTable): string {
  return mdTable(['Code', 'HTTP', 'Meaning'], Object.entries(errors).map(([c, e]) => [mdCode(c), String(e.status), mdCell(e.meaning)]))
}

/**
 * Routes that document no reply: neither a JSON `response` schema nor a `produces` media
 * type, and not a 204. The OpenAPI document of such a route has no reply, so it is refused.
 */
export function routesWithoutReply (routes: readonly RouteInfo[]): string[] {
  return routes.filter((r) => r.response === undefined && r.produces === undefined && r.status !== 204).map((r) => `${r.method} ${r.url}`)
}

/**
 * The whole `.env.example`: `intro` as comments, then per variable its meaning as a comment
 * and the line itself, commented out with its default unless the variable is required.
 */
export function renderEnvExample (schema: z.ZodObject<z.ZodRawShape>, intro: string): string {
  const blocks = configDocs(schema).map((d) => {
    const meaning = d.description.split('\n').map((l) => `# ${l}`.trimEnd()).join('\n')
    const line = d.required ? `${d.name}=` : `# ${d.name}=${d.default ?? ''}`
    return `${meaning}${d.secret ? ' (secret)' : ''}\n${line}`
  })
  return `${intro.split('\n').map((l) => `# ${l}`.trimEnd()).join('\n')}\n\n${blocks.join('\n\n')}\n`
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` of `doc` with `body`. */
export function replaceSection (doc: string, name: string, body: string, page = 'the page'): string {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  const start = doc.indexOf(begin)
  const stop = doc.indexOf(end)
  if (start < 0 || stop < start || doc.indexOf(begin, start + 1) >= 0) {
    throw new Error(`${page} must contain exactly one "${begin}" followed by "${end}"`)
  }
  return `${doc.slice(0, start + begin.length)}\n${body}\n${doc.slice(stop)}`
}

/** A generated file: its repository-relative path, what is on disk, and what it should be. */
export interface ReferenceFile { path: string; current: string; fresh: string }

/**
 * Renders every page and the `.env.example` of `ref` against the files under `root`
 * (nothing is written: see {@link writeReference}).
 */
export async function renderReference (ref: DaemonReference, root: string): Promise<ReferenceFile[]> {
  const bodies: Record<ReferenceSection, () => Promise<string>> = {
    env: async () => renderEnvTable(ref.envSchema),
    cli: async () => renderCliTable(ref.bin, ref.program(silentIO())),
    routes: async () => renderRoutesTable(await ref.routes()),
    errors: async () => renderErrorsTable(ref.errors)
  }
  const files: ReferenceFile[] = []
  for (const page of ref.pages) {
    const current = await readFile(`${root}/${page.path}`, 'utf8')
    let fresh = current
    for (const s of page.sections) fresh = replaceSection(fresh, s, await bodies[s](), page.path)
    files.push({ path: page.path, current, fresh })
  }
  const example = await readFile(`${root}/${ref.envExample.path}`, 'utf8').catch(() => '')
  files.push({ path: ref.envExample.path, current: example, fresh: renderEnvExample(ref.envSchema, ref.envExample.intro) })
  return files
}

/** Writes the stale files of {@link renderReference}; resolves to the paths written. */
export async function writeReference (ref: DaemonReference, root: string): Promise<string[]> {
  const written: string[] = []
  for (const f of await renderReference(ref, root)) {
    if (f.fresh === f.current) continue
    await writeFile(`${root}/${f.path}`, f.fresh)
    written.push(f.path)
  }
  return written
}

/**
 * A Proxy standing in for a collaborator while a server is built only to read its route
 * table: any property read returns `overrides[prop]` or a function that throws.
 */
export function referenceStub<T extends object> (overrides: Record<string, unknown> = {}): T {
  return new Proxy({}, {
    get: (_t, prop) => (typeof prop === 'string' && prop in overrides)
      ? overrides[prop]
      : () => { throw new Error(`reference stub: ${String(prop)} called while only reading the route table`) }
  }) as T
}

/** The route table of a server built only to be read: made ready, read, closed. */
export async function readRouteTable (app: FastifyInstance): Promise<RouteInfo[]> {
  try {
    await app.ready()
    return [...routeTable(app)]
  } finally {
    await app.close()
  }
}
