import { readFile, writeFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

const DOC = fileURLToPath(new URL('../../docs/benchmarks.md', import.meta.url))

/**
 * Replaces the `<!-- <name>:begin -->` … `<!-- <name>:end -->` block of docs/benchmarks.md
 * with `body`; without the markers, appends `heading` and a new block at the end.
 */
export async function writeDocBlock (name: string, heading: string, body: string): Promise<void> {
  const begin = `<!-- ${name}:begin -->`
  const end = `<!-- ${name}:end -->`
  let text = await readFile(DOC, 'utf8')
  const block = `${begin}\n${body}\n${end}`
  if (text.includes(begin) && text.includes(end)) text = text.slice(0, text.indexOf(begin)) + block + text.slice(text.indexOf(end) + end.length)
  else text = `${text.trimEnd()}\n\n${heading}\n\n${block}\n`
  await writeFile(DOC, text)
}
