#!/usr/bin/env node
// Bundles the viewer engine worklet (packages/sdk/worklet/main.ts) into one Bare bundle
// (docs/engine-ipc.md "The bundle"):
//
//   node scripts/bundle-worklet.mjs [--out <dir>] [--host <platform-arch>]... [--linked]
//
// 1. esbuild compiles the worklet, the SDK and the workspace packages from their TypeScript
//    sources and every pure-JS dependency into one CommonJS file. Node built-ins map to their
//    Bare modules; native addon packages and bare-* modules stay outside, named by real path
//    (pnpm's store keeps their dependencies beside them there).
// 2. bare-pack packs that file and everything it requires into `arus-engine.bundle`.
//    Default: for this machine (`--host linux-x64`), with the addons' prebuilds written next to
//    the bundle (`--offload-addons`), so `bare arus-engine.bundle` runs here. With `--linked`
//    (phones: `--linked --host android-arm64 --host ios-arm64 ...`) addons resolve to the
//    libraries react-native-bare-kit links into the app, and the bundle is also written as
//    base64 (`arus-engine.bundle.base64`), the form ArusBackend.start() accepts.
import { build } from 'esbuild'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, realpathSync, statSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parseArgs } from 'node:util'

const sdk = resolve(dirname(fileURLToPath(import.meta.url)), '..')
const root = resolve(sdk, '../..')
const { values } = parseArgs({ options: { out: { type: 'string' }, host: { type: 'string', multiple: true }, linked: { type: 'boolean', default: false } } })
const hosts = values.host ?? [`${process.platform}-${process.arch}`]
const out = resolve(values.out ?? join(sdk, 'dist', 'worklet', values.linked ? 'linked' : hosts.join('+')))
mkdirSync(out, { recursive: true })

// Workspace packages from their sources (like vitest.config.ts).
const workspace = {}
for (const dir of readdirSync(join(root, 'packages'))) {
  const entry = join(root, 'packages', dir, 'src', 'index.ts')
  if (existsSync(entry)) workspace[`@arus/${dir}`] = entry
}
const BARE = { events: 'bare-events', stream: 'bare-stream', fs: 'bare-fs', 'fs/promises': 'bare-fs/promises', path: 'bare-path', os: 'bare-os', crypto: 'bare-crypto', http: 'bare-http1', url: 'bare-url', buffer: 'bare-buffer', tty: 'bare-tty', net: 'bare-tcp', child_process: 'bare-subprocess' }
const bareName = (spec) => {
  const name = spec.startsWith('node:') ? spec.slice(5) : spec
  return BARE[name] ?? (spec.startsWith('node:') ? `bare-${name}` : null)
}
const packageDir = (file) => {
  let dir = dirname(file)
  while (!existsSync(join(dir, 'package.json'))) dir = dirname(dir)
  return dir
}
const isAddon = (dir) => ['prebuilds', 'binding.gyp', 'CMakeLists.txt'].some((f) => existsSync(join(dir, f)))

// Inside the workspace: bare-pack names modules relative to --base (the repository root).
const intermediate = join(sdk, 'dist', 'worklet-build', 'engine.cjs')
await build({
  entryPoints: [join(sdk, 'worklet', 'main.ts')],
  outfile: intermediate,
  bundle: true,
  format: 'cjs',
  platform: 'neutral',
  target: 'es2022',
  mainFields: ['main', 'module'],
  conditions: ['bare', 'require', 'default'],
  legalComments: 'none',
  logLevel: 'warning',
  plugins: [{
    name: 'bare',
    setup (b) {
      b.onResolve({ filter: /^@arus\// }, (a) => workspace[a.path] ? { path: workspace[a.path] } : undefined)
      b.onResolve({ filter: /^[^./]/ }, async (a) => {
        if (a.pluginData === 'inner' || a.path.startsWith('@arus/')) return undefined
        const spec = bareName(a.path) ?? a.path
        const isBare = spec.startsWith('bare-')
        const r = await b.resolve(spec, { resolveDir: isBare ? sdk : a.resolveDir, kind: a.kind, pluginData: 'inner' })
        if (r.errors.length > 0) return { errors: r.errors }
        if (isBare || isAddon(packageDir(r.path))) return { path: realpathSync(r.path), external: true }
        return r
      })
    }
  }]
})

const bundle = join(out, 'arus-engine.bundle')
const args = ['--base', root, '--out', bundle, ...hosts.flatMap((h) => ['--host', h]), ...(values.linked ? ['--linked'] : ['--offload-addons']), intermediate]
const packed = spawnSync(join(sdk, 'node_modules', '.bin', 'bare-pack'), args, { stdio: 'inherit' })
if (packed.status !== 0) {
  console.error(`bundle-worklet: bare-pack failed (${packed.status ?? packed.signal})`)
  process.exit(1)
}
if (values.linked) writeFileSync(`${bundle}.base64`, readFileSync(bundle).toString('base64'))
console.log(JSON.stringify({ bundle: relative(process.cwd(), bundle), bytes: statSync(bundle).size, hosts, linked: values.linked }))
