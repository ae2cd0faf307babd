/**
 * The generated parts of docs/broadcaster.md: the environment table (from the env schema
 * through `configDocs`), the CLI table (from the commander program), the control API route
 * table (from the kit's route table of a server built with stub collaborators) and the
 * error-code table. Shared by gen-docs.ts (writes the page) and test/docs.test.ts (fails
 * when the page is stale).
 */
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { configDocs, createLogger, createMetricsRegistry, routeTable, type ConfigDoc } from '@arus/service'
import { buildProgram } from '../src/cli.js'
import { broadcasterEnvSchema } from '../src/config.js'
import { BROADCASTER_ERROR_CODES, BROADCASTER_ERROR_STATUS, type BroadcasterErrorCode } from '../src/errors.js'
import { buildBroadcasterServer, type BroadcasterServerDeps } from '../src/http/server.js'

export const DOC_PATH = fileURLToPath(new URL('../../../docs/broadcaster.md', import.meta.url))
export const GEN_DOCS_COMMAND = 'pnpm exec tsx apps/broadcaster/scripts/gen-docs.ts'

const cell = (text: string) => text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim()
const code = (text: string) => (text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``)

function table (header: string[], rows: string[][]): string {
  return [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`, ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)].join('\n')
}

function envDefault (d: ConfigDoc): string {
  if (d.default === undefined) return d.required ? '**required**' : '(unset)'
  return d.default === '' ? '(empty)' : code(d.default)
}

export function renderEnvTable (): string {
  return table(['Variable', 'Default', 'Type', 'Meaning'], configDocs(broadcasterEnvSchema).map((d) => [
    code(d.name) + (d.secret ? ' (secret)' : ''), envDefault(d), d.type, d.description
  ]))
}

export function renderCliTable (): string {
  const sink = new Writable({ write (_c, _e, cb) { cb() } })
  const program = buildProgram({ stdout: sink, stderr: sink, stdin: Readable.from([]), env: {} })
  const rows = program.commands.map((cmd) => [code(cmd.name()), code(`arus-broadcaster ${cmd.name()} ${cmd.usage()}`.trim()), cmd.description()])
  const globals = program.options.map((o) => `${code(o.flags)} ${o.description}`.trim()).join('; ')
  return `${table(['Command', 'Usage', 'Description'], rows)}\n\nGlobal options (before the command): ${globals}.`
}

/** The control API's routes, in declaration order, from a server built with stub collaborators. */
export async function renderRoutesTable (): Promise<string> {
  const stub = new Proxy({}, { get: () => () => { throw new Error('stub') } })
  const app = buildBroadcasterServer({
    log: createLogger({ name: 'docs', level: 'silent' }),
    metrics: createMetricsRegistry({ defaultMetrics: false }),
    keys: { publicKey: new Uint8Array(32), secretKey: new Uint8Array(64) },
    settings: { sessionTtlMs: 1, lockout: { threshold: 1, windowSeconds: 1 }, verifyTimeoutMs: 1000, decoyCost: { opslimit: 1, memlimit: 8192 } },
    startedAt: 0,
    health: () => ({}),
    status: () => ({}),
    manager: stub,
    analytics: stub,
    incidents: stub,
    capabilities: stub,
    admins: stub
  } as unknown as BroadcasterServerDeps)
  try {
    const rows = routeTable(app).map((r) => [code(`${r.method} ${r.url}`), r.auth ? 'admin token' : 'none', r.summary])
    return table(['Route', 'Auth', 'What'], rows)
  } finally {
    await app.close()
  }
}

export function renderErrorsTable (): string {
  return table(['Code', 'HTTP', 'Meaning'], Object.entries(BROADCASTER_ERROR_CODES).map(([c, meaning]) => [
    code(c), String(BROADCASTER_ERROR_STATUS[c as BroadcasterErrorCode]), meaning
  ]))
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` with `body`. */
export function replaceSection (doc: string, name: string, body: string): string {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  const start = doc.indexOf(begin)
  const stop = doc.indexOf(end)
  if (start < 0 || stop < start || doc.indexOf(begin, start + 1) >= 0) throw new Error(`docs/broadcaster.md must contain exactly one "${begin}" followed by "${end}"`)
  return `${doc.slice(0, start + begin.length)}\n${body}\n${doc.slice(stop)}`
}

export async function renderDoc (doc: string): Promise<string> {
  let out = replaceSection(doc, 'env', renderEnvTable())
  out = replaceSection(out, 'cli', renderCliTable())
  out = replaceSection(out, 'routes', await renderRoutesTable())
  return replaceSection(out, 'errors', renderErrorsTable())
}
