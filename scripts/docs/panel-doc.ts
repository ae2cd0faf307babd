/**
 * The generated parts of docs/panel.md: the environment table (from the panel's env
 * schema through `configDocs`) and the CLI command table (from the commander program).
 * Shared by scripts/gen-docs.ts (writes the page) and test/docs/panel-doc.test.ts
 * (fails when the page is stale).
 *
 * `@arus/*` must resolve to packages/<name>/src: vitest aliases it, and gen-docs.ts
 * registers the same alias before importing this module.
 */
import { Readable, Writable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import { configDocs, type ConfigDoc } from '@arus/service'
import { buildProgram } from '../../apps/panel/src/cli.js'
import { panelEnvSchema } from '../../apps/panel/src/config.js'

/** commander's Command, as the panel builds it (commander itself is the panel's dependency, not the root's). */
type Command = ReturnType<typeof buildProgram>

/** Absolute path of docs/panel.md. */
export const PANEL_DOC_PATH = fileURLToPath(new URL('../../docs/panel.md', import.meta.url))

/** The command that rewrites the generated sections. */
export const GEN_DOCS_COMMAND = 'pnpm exec tsx scripts/gen-docs.ts'

/** A markdown table cell: no line breaks, pipes escaped. */
function cell (text: string): string {
  return text.replace(/\r?\n/g, ' ').replace(/\|/g, '\\|').trim()
}

/** An inline code span that survives backticks in `text`. */
function code (text: string): string {
  return text.includes('`') ? `\`\` ${text} \`\`` : `\`${text}\``
}

function table (header: string[], rows: string[][]): string {
  return [
    `| ${header.join(' | ')} |`,
    `|${header.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`)
  ].join('\n')
}

function envDefault (d: ConfigDoc): string {
  if (d.default === undefined) return d.required ? '**required**' : '(unset)'
  return d.default === '' ? '(empty)' : code(d.default)
}

/** The environment table, one row per variable of `panelEnvSchema`, in declaration order. */
export function renderEnvTable (): string {
  const rows = configDocs(panelEnvSchema).map((d) => [
    code(d.name) + (d.secret ? ' (secret)' : ''),
    envDefault(d),
    d.type,
    d.description
  ])
  return table(['Variable', 'Default', 'Type', 'Meaning'], rows)
}

function describeOptions (cmd: Command): string {
  return cmd.options.map((o) => {
    const parts = [code(o.flags)]
    if (o.description) parts.push(o.description)
    if (o.defaultValue !== undefined) parts.push(`(default ${code(String(o.defaultValue))})`)
    return parts.join(' ')
  }).join('; ')
}

/** The CLI table, one row per `arus-panel` command in program order, plus the global options. */
export function renderCliTable (): string {
  const sink = new Writable({ write (_chunk, _encoding, callback) { callback() } })
  const program = buildProgram({ stdout: sink, stderr: sink, stdin: Readable.from([]), env: {} })
  const rows = program.commands.map((cmd) => [
    code(cmd.name()),
    code(`arus-panel ${cmd.name()} ${cmd.usage()}`.trim()),
    cmd.description(),
    describeOptions(cmd) || '—'
  ])
  const globals = program.options.map((o) => `${code(o.flags)} ${o.description}`.trim()).join('; ')
  return `${table(['Command', 'Usage', 'Description', 'Options'], rows)}\n\nGlobal options (before the command): ${globals}.`
}

/** Replaces the text between `<!-- name:begin -->` and `<!-- name:end -->` with `body`. */
export function replaceSection (doc: string, name: string, body: string): string {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  const start = doc.indexOf(begin)
  const stop = doc.indexOf(end)
  if (start < 0 || stop < start || doc.indexOf(begin, start + 1) >= 0) {
    throw new Error(`docs/panel.md must contain exactly one "${begin}" followed by "${end}"`)
  }
  return `${doc.slice(0, start + begin.length)}\n${body}\n${doc.slice(stop)}`
}

/** `doc` (the text of docs/panel.md) with both generated sections regenerated. */
export function renderPanelDoc (doc: string): string {
  return replaceSection(replaceSection(doc, 'env', renderEnvTable()), 'cli', renderCliTable())
}
