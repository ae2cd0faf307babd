// arus-testnet: a local DHT bootstrap network for tests and the demo (see ../../README.md).
import { parseTestnetArgs, USAGE } from './args.js'
import { startLocalTestnet } from '../local-testnet.js'
import { formatBootstrap } from '../bootstrap.js'
import { SwarmError } from '../errors.js'

const EXIT_USAGE = 2
// If closing the nodes hangs, give up rather than ignore the signal forever.
const CLOSE_DEADLINE_MS = 10_000

function write (stream: NodeJS.WriteStream, text: string): Promise<void> {
  return new Promise((resolve, reject) => stream.write(text, (err) => (err ? reject(err) : resolve())))
}

async function main (argv: readonly string[]): Promise<number> {
  let args
  try {
    args = parseTestnetArgs(argv)
  } catch (err) {
    if (!(err instanceof SwarmError)) throw err
    await write(process.stderr, `arus-testnet: ${err.message}\n\n${USAGE}\n`)
    return EXIT_USAGE
  }
  if (args.help) {
    await write(process.stdout, `${USAGE}\n`)
    return 0
  }

  // Handlers go in before anything is printed: a reader may signal as soon as it sees the line.
  const signalled = new Promise<NodeJS.Signals>((resolve) => {
    process.once('SIGINT', resolve)
    process.once('SIGTERM', resolve)
  })
  const testnet = await startLocalTestnet(args.hosts === null
    ? { host: args.host, port: args.port, size: args.size }
    : { hosts: args.hosts, port: args.port })
  // The first stdout line is the contract: scripts and tests read it to find the DHT.
  await write(process.stdout, `BOOTSTRAP=${formatBootstrap(testnet.bootstrap)}\n`)

  const signal = await signalled
  await write(process.stderr, `arus-testnet: ${signal}, closing ${testnet.nodes.length} node(s)\n`)
  const deadline = setTimeout(() => {
    process.stderr.write('arus-testnet: close timed out\n')
    process.exit(1)
  }, CLOSE_DEADLINE_MS)
  deadline.unref()
  await testnet.destroy()
  clearTimeout(deadline)
  return 0
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err: unknown) => {
    process.stderr.write(`arus-testnet: ${err instanceof Error ? err.message : String(err)}\n`)
    process.exit(1)
  }
)
