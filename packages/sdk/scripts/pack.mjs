#!/usr/bin/env node
// Packaging of @arus/sdk for npm (issue 5 item 7). `pnpm --filter @arus/sdk pack` runs
//   prepack:  bundle dist/ (tsc output) with every internal @arus/* package into dist/npm/index.js
//             (esbuild; registry packages stay external), bundle the declarations tsc emitted into
//             dist/npm/index.d.ts (rollup-plugin-dts, @arus/* types inlined), then swap in a
//             clean package.json: registry dependencies only, no workspace:* entries;
//   postpack: put the workspace package.json back.
// `node scripts/pack.mjs bundle` only builds dist/npm/ (and prints the manifest it would use);
// `node scripts/pack.mjs restore` puts a package.json left swapped by an interrupted pack back.
import { existsSync, readFileSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { rollup } from 'rollup'
import { dts } from 'rollup-plugin-dts'

const pkgDir = fileURLToPath(new URL('..', import.meta.url))
const root = join(pkgDir, '..', '..')
// Inside dist/ (generated output, ignored by git and eslint); tsc -b leaves unknown files alone.
const outDir = join(pkgDir, 'dist', 'npm')
const manifestPath = join(pkgDir, 'package.json')
const backupPath = join(pkgDir, '.package.json.workspace')

/** Name of the package a bare specifier belongs to ('@a/b/c' → '@a/b', 'x/y' → 'x'). */
function packageOf (spec) {
  const parts = spec.split('/')
  return spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]
}

function readJson (path) { return JSON.parse(readFileSync(path, 'utf8')) }

/** Version ranges of registry packages, from this package first, then the bundled @arus/* ones. */
function versionTable (workspaceManifest) {
  const table = new Map()
  const add = (deps = {}) => {
    for (const [name, range] of Object.entries(deps)) if (!table.has(name) && !String(range).startsWith('workspace:')) table.set(name, range)
  }
  add(workspaceManifest.dependencies)
  for (const dir of readdirSync(join(root, 'packages'))) {
    const p = join(root, 'packages', dir, 'package.json')
    if (existsSync(p)) add(readJson(p).dependencies)
  }
  return table
}

async function bundle (workspaceManifest) {
  if (!existsSync(join(pkgDir, 'dist', 'index.js'))) throw new Error('dist/index.js is missing: run `pnpm exec tsc -b packages/sdk` first')
  rmSync(outDir, { recursive: true, force: true })
  const external = new Set()
  const result = await build({
    entryPoints: [join(pkgDir, 'dist', 'index.js')],
    outfile: join(outDir, 'index.js'),
    bundle: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    sourcemap: false,
    legalComments: 'none',
    logLevel: 'warning',
    plugins: [{
      name: 'registry-external',
      setup (b) {
        // Everything that is not ours (relative, or an @arus/* workspace package) stays an import.
        b.onResolve({ filter: /^[^./]/ }, (args) => {
          if (args.path.startsWith('@arus/') || args.path.startsWith('node:')) return undefined
          external.add(packageOf(args.path))
          return { path: args.path, external: true }
        })
      }
    }]
  })
  if (result.errors.length > 0) throw new Error('esbuild failed')
  // The declarations tsc -b already emitted (and type-checked), bundled without a second type
  // check: rollup-plugin-dts parses them, inlines the @arus/* ones and keeps registry imports.
  // (dts-bundle-generator, used before, walked zod's types for minutes on 2 cores; issue 39 item 10.)
  const types = await rollup({
    input: join(pkgDir, 'dist', 'index.d.ts'),
    external: (id) => !id.startsWith('@arus/') && !id.startsWith('.') && !id.startsWith('/'),
    plugins: [dts({ respectExternal: true })],
    onwarn: (w) => { throw new Error(`declaration bundle: ${w.message}`) }
  })
  await types.write({ file: join(outDir, 'index.d.ts'), format: 'es' })
  await types.close()
  const declarations = readFileSync(join(outDir, 'index.d.ts'), 'utf8')
  if (/from ['"]@arus\//.test(declarations)) throw new Error('dist/npm/index.d.ts still imports an @arus/* package')
  const versions = versionTable(workspaceManifest)
  const dependencies = {}
  for (const name of [...external].sort()) {
    const range = versions.get(name)
    if (range === undefined) throw new Error(`the bundle imports ${name}, which no package.json declares`)
    dependencies[name] = range
  }
  return dependencies
}

/** The manifest that ships: the bundle as the only entry, registry dependencies only. */
function cleanManifest (ws, dependencies) {
  return {
    name: ws.name,
    version: ws.version,
    description: ws.description,
    type: 'module',
    exports: { '.': { types: './dist/npm/index.d.ts', default: './dist/npm/index.js' } },
    main: './dist/npm/index.js',
    types: './dist/npm/index.d.ts',
    files: ['dist/npm', 'examples', 'README.md'],
    engines: { node: '>=20.19' },
    dependencies,
    license: ws.license
  }
}

function restore () {
  if (existsSync(backupPath)) renameSync(backupPath, manifestPath)
}

const command = process.argv[2]
if (command === 'prepack') {
  restore() // a pack interrupted before its postpack left the clean manifest in place
  const ws = readJson(manifestPath)
  const dependencies = await bundle(ws)
  writeFileSync(backupPath, readFileSync(manifestPath))
  const tmp = `${manifestPath}.tmp`
  writeFileSync(tmp, JSON.stringify(cleanManifest(ws, dependencies), null, 2) + '\n')
  renameSync(tmp, manifestPath)
} else if (command === 'postpack' || command === 'restore') {
  restore()
} else if (command === 'bundle') {
  restore()
  const ws = readJson(manifestPath)
  console.log(JSON.stringify(cleanManifest(ws, await bundle(ws)), null, 2))
} else {
  console.error('usage: pack.mjs prepack|postpack|bundle|restore')
  process.exit(2)
}
