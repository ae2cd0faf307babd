import { spawn } from 'node:child_process'
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, expect, it } from 'vitest'
import { cleanupAll, spawnProcess, tmpDir } from '@arus/testkit'
import { decode } from './helpers/ffmpeg.js'
import { startBroadcaster } from './helpers/broadcaster.js'
import { api, createStack, panel, runPanel } from './helpers/stack.js'

// Issue 5 item 7: `pnpm --filter @arus/sdk pack` yields a tarball that installs with plain
// `npm install` in an empty project (registry packages only), imports with types, and plays.
const pkgDir = fileURLToPath(new URL('..', import.meta.url))
const root = join(pkgDir, '..', '..')

function run (cmd: string, args: string[], cwd: string, timeoutMs: number): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn(cmd, args, { cwd, env: { ...process.env, npm_config_update_notifier: 'false' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.setEncoding('utf8').on('data', (s: string) => { out += s })
    child.stderr.setEncoding('utf8').on('data', (s: string) => { out += s })
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs)
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, out }) })
  })
}

/** The pnpm this workspace runs with (global, or the copy scripts/setup.sh put in .tools/). */
function pnpm (): string {
  const local = join(root, '.tools', 'node_modules', '.bin', 'pnpm')
  return existsSync(local) ? local : 'pnpm'
}

afterAll(async () => { await cleanupAll() }, 60_000)

it('packs, installs with npm in an empty project, imports with types and plays', async (t) => {
  const out = tmpDir(t, 'arus-pack-')
  let packed
  try {
    packed = await run(pnpm(), ['--filter', '@arus/sdk', 'pack', '--pack-destination', out], root, 60_000)
  } finally {
    await run(process.execPath, [join(pkgDir, 'scripts', 'pack.mjs'), 'restore'], pkgDir, 30_000)
  }
  expect(packed.code, packed.out).toBe(0)
  expect(JSON.parse(readFileSync(join(pkgDir, 'package.json'), 'utf8')).dependencies['@arus/catalog']).toBe('workspace:*')
  const tgz = readdirSync(out).find((f) => f.endsWith('.tgz'))
  expect(tgz).toBeDefined()
  const tarball = join(out, tgz as string)

  const app = tmpDir(t, 'arus-consumer-')
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }))
  const install = await run('npm', ['install', '--no-audit', '--no-fund', tarball], app, 240_000)
  expect(install.code, install.out).toBe(0)
  const manifest = JSON.parse(readFileSync(join(app, 'node_modules', '@arus', 'sdk', 'package.json'), 'utf8'))
  expect(Object.keys(manifest.dependencies).filter((d) => d.startsWith('@arus/'))).toEqual([])
  expect(JSON.stringify(manifest)).not.toContain('workspace:')
  expect(readFileSync(join(app, 'node_modules', '@arus', 'sdk', 'dist', 'npm', 'index.d.ts'), 'utf8')).not.toMatch(/from ['"]@arus\//)

  writeFileSync(join(app, 'smoke.mjs'), "import { createPlayer, SDK_ERROR_CODES } from '@arus/sdk'\nconst p = createPlayer()\nawait p.stop()\nconsole.log('ok', typeof p.resolve, Object.keys(SDK_ERROR_CODES).length)\n")
  const imported = await run(process.execPath, ['smoke.mjs'], app, 30_000)
  expect(imported.out.trim()).toMatch(/^ok function \d+$/)

  writeFileSync(join(app, 'app.ts'), [
    "import { createPlayer, loginWithRetry, type DisplayItem, type Player, type ResolveResult } from '@arus/sdk'",
    "const player: Player = createPlayer({ uploadPolicy: 'client-only', tune: { timeoutMs: 30_000 } })",
    "player.on('feed-changed', (e) => { const url: string = e.url; void url })",
    'export async function main (): Promise<ResolveResult> {',
    "  const list: DisplayItem[] = await loginWithRetry(player, 'u', 'p')",
    '  return player.resolve(list[0]!.id)',
    '}',
    '// @ts-expect-error an unknown upload policy does not type-check',
    "createPlayer({ uploadPolicy: 'leech' })"
  ].join('\n'))
  writeFileSync(join(app, 'tsconfig.json'), JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', target: 'ES2022', strict: true, noEmit: true, skipLibCheck: false }, files: ['app.ts'] }))
  const tsc = await run(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', app], app, 120_000)
  expect(tsc.out).toBe('')
  expect(tsc.code).toBe(0)

  // The installed package, through its example headless player, against a real panel and broadcaster.
  const stack = await createStack(t)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(t, stack)
  await (await startBroadcaster(t, stack)).channel('news')
  await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'news' })
  const example = spawnProcess(t, process.execPath, [join(app, 'node_modules', '@arus', 'sdk', 'examples', 'headless.mjs')], {
    cwd: app,
    env: { ARUS_PANEL_KEY: stack.panelKey, ARUS_USER: 'alice', ARUS_PASSWORD: 'alice-pw', ARUS_BOOTSTRAP: stack.testnet.bootstrapString, ARUS_STORE_DIR: join(app, 'store') }
  })
  const url = (await example.waitForLine(/^URL (http:\/\/127\.0\.0\.1:\d+\/index\.m3u8)$/, 60_000))[1] as string
  const played = await decode(url, 2)
  expect(played.stderr).toBe('')
  expect(played.code).toBe(0)
  expect((await example.stop('SIGINT', 10_000)).code).toBe(0)
}, 600_000)
