// Runs inside a lab namespace: a Unix socket (argv[2]) whose connections go to a loopback
// TCP port of this namespace (argv[3]). See expose.ts. Prints `listening` once bound.
import { rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'

const [socketPath, portText] = process.argv.slice(2)
const port = Number(portText)
if (socketPath === undefined || !Number.isInteger(port) || port <= 0 || port > 65535) {
  process.stderr.write('usage: forwarder <socket path> <port>\n')
  process.exit(2)
}
rmSync(socketPath, { force: true })
const server = createServer((client) => {
  const inner = createConnection({ host: '127.0.0.1', port })
  const drop = (): void => { client.destroy(); inner.destroy() }
  client.on('error', drop).on('close', drop)
  inner.on('error', drop).on('close', drop)
  client.pipe(inner).pipe(client)
})
server.listen(socketPath, () => { process.stdout.write('listening\n') })
const stop = (): void => { server.close(); rmSync(socketPath, { force: true }); process.exit(0) }
process.once('SIGTERM', stop)
process.once('SIGINT', stop)
