import type Hyperswarm from 'hyperswarm'
import { SwarmError } from './errors.js'

/** Requested UDP socket buffer sizes, in bytes (spec 2: `SWARM_RCVBUF_MB`, `SWARM_SNDBUF_MB`, default 4 and 4). */
export interface SocketBufferInit {
  recvBufferBytes?: number
  sendBufferBytes?: number
}

/** Buffer sizes the kernel actually granted (Linux doubles the request and caps it at `net.core.[rw]mem_max`). */
export interface SocketBufferSizes {
  recvBufferBytes: number
  sendBufferBytes: number
}

interface UdxSocket {
  setRecvBufferSize(size: number): number
  setSendBufferSize(size: number): number
  getRecvBufferSize(): number
  getSendBufferSize(): number
}

function checkSize (name: string, value: number | undefined): void {
  if (value !== undefined && !(Number.isInteger(value) && value > 0)) {
    throw SwarmError.badOption(name, 'must be a positive integer number of bytes')
  }
}

/**
 * Socket tuning hook: waits for the swarm's DHT to bind, then sets the receive/send buffer
 * sizes of its two UDX sockets (the ones direct connections to an unfirewalled node use).
 * Applies to the sockets bound now; call again after a network change re-binds them.
 * Returns the sizes granted on the server socket.
 * @throws SwarmError `SWARM_BAD_OPTION` for a non-positive or non-integer size,
 *   `SWARM_DESTROYED` for a destroyed swarm.
 */
export async function tuneSocketBuffers (swarm: Hyperswarm, init: SocketBufferInit): Promise<SocketBufferSizes> {
  checkSize('recvBufferBytes', init.recvBufferBytes)
  checkSize('sendBufferBytes', init.sendBufferBytes)
  if (swarm.destroyed || swarm.dht.destroyed) throw SwarmError.destroyed()
  await swarm.dht.ready()
  // dht-rpc keeps its sockets on `io`; not part of hyperdht's documented API, hence the local type.
  const io = swarm.dht.io as { serverSocket: UdxSocket | null; clientSocket: UdxSocket | null }
  const sockets = [io.serverSocket, io.clientSocket].filter((s): s is UdxSocket => s !== null)
  for (const socket of sockets) {
    if (init.recvBufferBytes !== undefined) socket.setRecvBufferSize(init.recvBufferBytes)
    if (init.sendBufferBytes !== undefined) socket.setSendBufferSize(init.sendBufferBytes)
  }
  const probe = sockets[0]
  if (probe === undefined) throw SwarmError.destroyed()
  return { recvBufferBytes: probe.getRecvBufferSize(), sendBufferBytes: probe.getSendBufferSize() }
}
