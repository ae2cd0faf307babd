import { execFile } from 'node:child_process'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { connect } from 'node:net'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { TestkitError } from './errors.js'
import { spawnProcess } from './process.js'
import { registerTeardown, type TestContextLike } from './teardown.js'
import { ownedTmpDir } from './tmp.js'
import { freePort, waitFor } from './wait.js'

const run = promisify(execFile)

/** A throwaway sshd on 127.0.0.1 (Debian's openssh-server), key login only, as this user. */
export interface Sshd {
  host: '127.0.0.1'
  port: number
  user: string
  /** The client's private key (its public half is the only authorized key). */
  keyPath: string
  /** A known_hosts file holding the server's host key (clients pass it as UserKnownHostsFile). */
  knownHosts: string
  close(): Promise<void>
}

/**
 * Starts `sshd -D -f <own config>` with a fresh host key and user key in a temp dir, never
 * touching the system's sshd or ~/.ssh (VERSIONS.md: StrictModes no, UsePAM no, own PidFile,
 * /run/sshd made first). Torn down with `t` or `close()`.
 */
export async function startSshd (t: TestContextLike | undefined): Promise<Sshd> {
  const owned = ownedTmpDir(t, 'arus-sshd-')
  const dir = owned.dir
  const port = await freePort()
  const user = (await run('id', ['-un'])).stdout.trim()
  await mkdir('/run/sshd', { recursive: true, mode: 0o755 }).catch(() => {})
  for (const name of ['host_key', 'user_key']) await run('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', `arus-test-${name}`, '-f', join(dir, name)])
  await writeFile(join(dir, 'authorized_keys'), await readFile(join(dir, 'user_key.pub')), { mode: 0o600 })
  const hostPub = (await readFile(join(dir, 'host_key.pub'), 'utf8')).trim().split(' ').slice(0, 2).join(' ')
  await writeFile(join(dir, 'known_hosts'), `[127.0.0.1]:${port} ${hostPub}\n`, { mode: 0o600 })
  await writeFile(join(dir, 'sshd_config'), [
    `Port ${port}`, 'ListenAddress 127.0.0.1', `HostKey ${join(dir, 'host_key')}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PubkeyAuthentication yes', 'PasswordAuthentication no', 'KbdInteractiveAuthentication no', 'PermitRootLogin prohibit-password',
    'StrictModes no', 'UsePAM no', `PidFile ${join(dir, 'sshd.pid')}`, 'AllowTcpForwarding yes', 'LogLevel ERROR', ''
  ].join('\n'))
  const proc = spawnProcess(undefined, '/usr/sbin/sshd', ['-D', '-e', '-f', join(dir, 'sshd_config')])
  const close = registerTeardown(t, async () => { try { await proc.stop('SIGTERM', 5000) } finally { await owned.remove() } })
  try {
    await waitFor(() => new Promise<boolean>((resolve) => {
      const c = connect({ host: '127.0.0.1', port })
      c.once('connect', () => { c.destroy(); resolve(true) })
      c.once('error', () => resolve(false))
    }), { timeoutMs: 10_000, intervalMs: 50, message: `sshd on 127.0.0.1:${port}` })
  } catch (err) {
    await close()
    throw TestkitError.timeout(`sshd (is openssh-server installed? ${proc.stderrText().trim()})`, 10_000, err)
  }
  return { host: '127.0.0.1', port, user, keyPath: join(dir, 'user_key'), knownHosts: join(dir, 'known_hosts'), close }
}
