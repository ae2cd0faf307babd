// arus-lab: brings a network lab up (and holds it until SIGINT/SIGTERM) or tears one down.
import { readFileSync } from 'node:fs'
import { LabError } from './errors.js'
import { labDown, startLab } from './lab.js'
import { LabSpec } from './spec.js'

const USAGE = `Usage:
  arus-lab up --id <id> [--homes <n>] [--spec <file.json>]
      Builds the lab, prints its layout as JSON (namespaces, addresses, BOOTSTRAP), and holds
      it until SIGINT or SIGTERM, then tears it down. Run programs inside it with
      'ip netns exec arus<id>-<name> …'. --homes n: n default homes (2 devices, 5/50 Mbit/s,
      60 ms RTT), every third one behind a randomizing NAT. --spec: a LabSpec (packages/lab/README.md).
  arus-lab down --id <id>
      Removes everything of lab <id> (processes, namespaces, links), even after a crash.`

function arg (argv: string[], name: string): string | undefined {
  const i = argv.indexOf(name)
  return i === -1 ? undefined : argv[i + 1]
}

async function main (argv: string[]): Promise<number> {
  const [cmd] = argv
  const id = arg(argv, '--id')
  if ((cmd !== 'up' && cmd !== 'down') || id === undefined) {
    process.stderr.write(`${USAGE}\n`)
    return cmd === '-h' || cmd === '--help' ? 0 : 2
  }
  if (cmd === 'down') {
    const r = await labDown(id)
    process.stdout.write(`${JSON.stringify({ removed: r.namespaces, killed: r.killed })}\n`)
    return 0
  }
  const specFile = arg(argv, '--spec')
  const homes = Number(arg(argv, '--homes') ?? '3')
  const raw: unknown = specFile !== undefined
    ? { ...JSON.parse(readFileSync(specFile, 'utf8')), id }
    : { id, homes: Array.from({ length: homes }, (_, i) => ({ nat: i % 3 === 2 ? 'random' : 'preserving' })) }
  const parsed = LabSpec.safeParse(raw)
  if (!parsed.success) {
    process.stderr.write(`arus-lab: invalid lab spec: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join('; ')}\n`)
    return 2
  }
  const lab = await startLab(parsed.data)
  const stop = new Promise<NodeJS.Signals>((resolve) => { process.once('SIGINT', resolve); process.once('SIGTERM', resolve) })
  process.stdout.write(`${JSON.stringify({ id, bootstrap: lab.bootstrap, dir: lab.dir, plan: lab.plan })}\n`)
  await stop
  await lab.down()
  return 0
}

main(process.argv.slice(2)).then((code) => process.exit(code), (err: unknown) => {
  process.stderr.write(`arus-lab: ${err instanceof LabError ? `${err.code}: ` : ''}${(err as Error).message}\n`)
  process.exit(1)
})
