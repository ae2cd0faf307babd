import { freePort, tmpDir, waitFor, type SpawnedProcess, type TestContextLike } from '@arus/testkit'
import { apiClient, broadcasterEnv, cli as broadcasterCli, LIGHT, spawnBroadcaster } from '../../../../apps/broadcaster/test/helpers.js'
import { panel, type Stack } from './stack.js'

/** A running `arus-broadcaster` process (its own publisher enrollment) and its control API. */
export interface Broadcaster {
  proc: SpawnedProcess
  api: ReturnType<typeof apiClient>
  /** Adds and starts a `test` channel (light pattern, 1 s segments); resolves its feedKey once registered. */
  channel(id: string, extra?: Record<string, unknown>): Promise<string>
  /** Freezes (SIGSTOP) or thaws (SIGCONT) the whole process: a broadcaster that stopped answering. */
  signal(sig: 'SIGSTOP' | 'SIGCONT' | 'SIGKILL'): void
}

let sites = 0

export async function startBroadcaster (t: TestContextLike, stack: Stack): Promise<Broadcaster> {
  const name = `site${++sites}`
  const site = await panel<{ secretKey: string }>(stack, ['add-publisher', name, '--scopes', '*'])
  const env = broadcasterEnv(tmpDir(t, 'arus-bc-'), {
    BOOTSTRAP: stack.testnet.bootstrapString,
    PANEL_PUBKEY: stack.panelKey,
    PUBLISHER_KEY: site.secretKey,
    PUBLISHER_NAME: name,
    CONTROL_ENABLED: '1',
    CONTROL_PORT: String(await freePort()),
    REGISTER_HEARTBEAT_SEC: '5',
    ROTATE_GRACE_SEC: '5'
  })
  const admin = await broadcasterCli(env, ['add-admin', 'op'], 'op-pw\n')
  if (admin.code !== 0) throw new Error(`arus-broadcaster add-admin: ${admin.stderr}`)
  const bc = await spawnBroadcaster(t, env)
  // A frozen process cannot be stopped by its teardown: thaw it first.
  t.onTestFinished(() => { if (bc.proc.child.exitCode === null) bc.proc.child.kill('SIGCONT') })
  const api = await apiClient(bc.url).login('op', 'op-pw')
  return {
    proc: bc.proc,
    api,
    async channel (id, extra = {}) {
      const added = await api.post('/api/channels', { id, title: id, input: 'test', ...LIGHT, ...extra })
      if (added.status !== 201) throw new Error(`add channel ${id}: ${added.status} ${JSON.stringify(added.body)}`)
      const started = await api.post(`/api/channels/${id}/start`)
      if (started.status !== 200) throw new Error(`start ${id}: ${started.status} ${JSON.stringify(started.body)}`)
      await waitFor(async () => (await api.get(`/api/channels/${id}`)).body.registered === true, { timeoutMs: 30_000, message: `${id} registered` })
      return started.body.feedKey as string
    },
    signal (sig) { bc.proc.child.kill(sig) }
  }
}
