import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ARUS_BINS, cleanupAll, collectSecrets, createTestnet, findSecrets, runBin, startPanel, startSshd, tmpDir, type PanelHandle, type Sshd } from '@arus/testkit'
import { scanSeen, startMcp } from './harness.js'

// Issue 17, SSH: a backend without a url is reached through an SSH local-forward tunnel to its
// loopback port on the box — here a real sshd (Debian's openssh-server) on 127.0.0.1 with a
// throwaway host key and user key, and a real panel behind it.

const ctx = { onTestFinished: () => {} }
let panel: PanelHandle
let sshd: Sshd

beforeAll(async () => {
  const testnet = await createTestnet(ctx)
  panel = await startPanel(ctx, { testnet })
  sshd = await startSshd(ctx)
}, 120_000)

afterAll(async () => { await cleanupAll() }, 60_000)

const sshBlock = () => ({ host: sshd.host, user: sshd.user, keyPath: sshd.keyPath, port: sshd.port, knownHosts: sshd.knownHosts })
const panelBlock = () => ({ user: panel.admin.name, pass: panel.admin.password, port: Number(new URL(panel.adminUrl!).port) })

describe('backends through an SSH tunnel', () => {
  it('tools reach a panel with no url through the tunnel; the doctor probes through it', async (t) => {
    const mcp = await startMcp(t, { panel: panelBlock(), ssh: sshBlock() })
    const status = await mcp.json('panel_status')
    expect(status.panelKey).toBe(panel.panelKey)
    await mcp.json('panel_create_user', { username: 'tunnelled', password: 'tunnel-pw-1' })
    expect((await panel.api('GET', '/api/users/tunnelled')).username).toBe('tunnelled')
    const doctor = await runBin(ARUS_BINS.mcp, ['--doctor', '--config', mcp.configPath], { timeoutMs: 60_000 })
    expect(doctor.code, doctor.stdout + doctor.stderr).toBe(0)
    expect(doctor.stdout).toMatch(/panel: \/healthz ok at http:\/\/127\.0\.0\.1:\d+/)
  })

  it('a key the box does not accept fails the doctor (exit 1) with the ssh reason, and tools answer isError', async (t) => {
    const dir = tmpDir(t, 'arus-mcp-badkey-')
    const other = join(dir, 'other_key')
    await runBin('/usr/bin/ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-f', other])
    const mcp = await startMcp(t, { panel: panelBlock(), ssh: { ...sshBlock(), keyPath: other } })
    const r = await mcp.call('panel_status')
    expect(r.isError).toBe(true)
    expect(r.text).toMatch(/unreachable.*ssh tunnel/i)
    const doctor = await runBin(ARUS_BINS.mcp, ['--doctor', '--config', mcp.configPath], { timeoutMs: 60_000 })
    expect(doctor.code).toBe(1)
    expect(doctor.stdout).toMatch(/Permission denied/)
    // No url and no ssh block: the config is unusable.
    const bad = join(dir, 'nossh.json')
    await writeFile(bad, JSON.stringify({ panel: panelBlock() }), { mode: 0o600 })
    expect((await runBin(ARUS_BINS.mcp, ['--doctor', '--config', bad])).code).toBe(2)
  })

  it('no secret in this file\'s tool results or audit lines', async () => {
    await scanSeen(collectSecrets({ panel: panel.dataDir }, [{ kind: 'panel admin password', value: panel.admin.password }, { kind: 'user password', value: 'tunnel-pw-1' }]), findSecrets)
  })
})
