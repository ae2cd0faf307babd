import { spawnSync } from 'node:child_process'
import { cpSync, readFileSync, realpathSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { expect, it } from 'vitest'
import { tmpDir } from '@arus/testkit'

// The lazy-load patch (spec 3 "Versioning" 1): react-native-bare-kit declares minSdk 29, so an
// app that installs down to API 24 lowers it; the binding never loads the host below 29. The
// patch is pinned to the host's version and must apply to the package as published.
const here = dirname(fileURLToPath(import.meta.url))
const PATCH = join(here, '..', 'patches', 'react-native-bare-kit+0.14.5.patch')

it('the patch applies to react-native-bare-kit 0.14.5 as published and lowers its minSdk to 24', (t) => {
  const pkg = realpathSync(dirname(createRequire(join(here, '..', 'package.json')).resolve('react-native-bare-kit/package.json')))
  expect(JSON.parse(readFileSync(join(pkg, 'package.json'), 'utf8')).version).toBe('0.14.5')
  const app = tmpDir(t, 'arus-rn-app-')
  cpSync(pkg, join(app, 'node_modules', 'react-native-bare-kit'), { recursive: true })
  const gradle = join(app, 'node_modules', 'react-native-bare-kit', 'android', 'build.gradle')
  expect(readFileSync(gradle, 'utf8')).toContain('minSdk 29')
  const r = spawnSync('patch', ['-p1', '--forward', '-i', PATCH], { cwd: app, encoding: 'utf8' })
  expect(r.status, r.stdout + r.stderr).toBe(0)
  expect(readFileSync(gradle, 'utf8')).toContain('minSdk 24')
  expect(readFileSync(join(app, 'node_modules', 'react-native-bare-kit', 'android', 'libs', 'bare-kit', 'AndroidManifest.xml'), 'utf8')).toContain('android:minSdkVersion="24"')
})
