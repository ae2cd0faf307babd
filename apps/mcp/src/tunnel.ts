import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, connect } from 'node:net'

/**
 * An SSH local-forward tunnel (spec 2: "Without url the tool server opens an SSH local-forward
 * tunnel"): `ssh -N -L <free local port>:127.0.0.1:<service port>` to the box, in batch mode
 * (key only, never a password prompt), ready once the local port accepts a connection.
 */
export interface SshTarget { host: string; user: string; port: number; keyPath: string; knownHosts?: string | undefined }

export interface Tunnel { url: string; close(): Promise<void> }

const freePort = () => new Promise<number>((resolve, reject) => {
  const s = createServer()
  s.once('error', reject)
  s.listen(0, '127.0.0.1', () => { const a = s.address(); s.close(() => resolve(typeof a === 'object' && a ? a.port : 0)) })
})

const accepts = (port: number) => new Promise<boolean>((resolve) => {
  const c = connect({ host: '127.0.0.1', port })
  c.once('connect', () => { c.destroy(); resolve(true) })
  c.once('error', () => resolve(false))
})

export function sshArgs (t: SshTarget, extra: string[]): string[] {
  return ['-i', t.keyPath, '-p', String(t.port), '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'StrictHostKeyChecking=accept-new', ...(t.knownHosts ? ['-o', `UserKnownHostsFile=${t.knownHosts}`] : []), '-o', 'ConnectTimeout=10', '-o', 'ServerAliveInterval=15', ...extra, `${t.user}@${t.host}`]
}

export async function openTunnel (t: SshTarget, remotePort: number, timeoutMs = 15_000): Promise<Tunnel> {
  const local = await freePort()
  const child: ChildProcess = spawn('ssh', sshArgs(t, ['-N', '-o', 'ExitOnForwardFailure=yes', '-L', `127.0.0.1:${local}:127.0.0.1:${remotePort}`]), { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => { stderr = (stderr + d.toString()).slice(-2000) })
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`ssh tunnel to ${t.host} exited ${child.exitCode}: ${stderr.trim().split('\n').pop() ?? ''}`)
    if (await accepts(local)) {
      return {
        url: `http://127.0.0.1:${local}`,
        async close () {
          if (child.exitCode !== null) return
          child.kill('SIGTERM')
          await new Promise((r) => child.once('exit', r))
        }
      }
    }
    await new Promise((r) => setTimeout(r, 100))
  }
  child.kill('SIGKILL')
  throw new Error(`ssh tunnel to ${t.host}: the forward did not come up within ${timeoutMs} ms`)
}
