import { createConnection, createServer } from 'node:net'
import type { Server, Socket } from 'node:net'

/**
 * The lab's control plane into a namespace: a TCP port on the host's 127.0.0.1 whose
 * connections are carried over a Unix socket (a file, so it crosses network namespaces)
 * to the forwarder process inside the namespace, which connects to a loopback port there
 * (a daemon's admin API). The lab network itself keeps no route to the host.
 */
export async function hostBridge (socketPath: string): Promise<{ url: string; close: () => Promise<void> }> {
  const sockets = new Set<Socket>()
  const server: Server = createServer((client) => {
    const inner = createConnection({ path: socketPath })
    sockets.add(client).add(inner)
    const drop = (): void => { client.destroy(); inner.destroy(); sockets.delete(client); sockets.delete(inner) }
    client.on('error', drop).on('close', drop)
    inner.on('error', drop).on('close', drop)
    client.pipe(inner).pipe(client)
  })
  await new Promise<void>((resolve, reject) => { server.once('error', reject); server.listen(0, '127.0.0.1', resolve) })
  const { port } = server.address() as { port: number }
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise((resolve) => {
      for (const s of sockets) s.destroy()
      server.close(() => resolve())
    })
  }
}
