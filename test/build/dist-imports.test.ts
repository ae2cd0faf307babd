import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'

const root = fileURLToPath(new URL('../..', import.meta.url))

// Daemons run compiled dist/, so every package must import from its built entry under
// plain Node 20 (no tsx, no vitest aliases). The test command builds before running tests.
it('imports every package from its built dist under plain Node', () => {
  const script = `
    const { oprf } = await import('@arus/crypto')
    if (typeof oprf.blind !== 'function') throw new Error('oprf.blind missing')
    for (const name of ['@arus/catalog', '@arus/rpc', '@arus/service', '@arus/swarm']) {
      const m = await import(name)
      if (Object.keys(m).length === 0) throw new Error(name + ' exports nothing')
    }
    console.log('ok')
  `
  // apps/panel depends on every shared package, so bare specifiers resolve from there.
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: `${root}/apps/panel`, encoding: 'utf8', timeout: 30_000 })
  expect(r.stderr).toBe('')
  expect(r.stdout.trim()).toBe('ok')
  const kit = spawnSync(process.execPath, ['--input-type=module', '-e', "const m = await import('@arus/testkit'); console.log(typeof m.createTestnet)"], { cwd: root, encoding: 'utf8', timeout: 30_000 })
  expect(kit.stdout.trim()).toBe('function')
})
