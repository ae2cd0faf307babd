import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { tmpDir } from './tmp.js'

const PANEL_V1 = fileURLToPath(new URL('../fixtures/panel-v1.tar.gz', import.meta.url))

/**
 * A copy of the committed panel data directory from before issue 40 (fixtures/README.md):
 * users on login key schedule 1, made by the code of that time. Each call extracts a fresh
 * copy under a temp dir that `cleanupAll` removes.
 */
export function panelV1Fixture (): {
  dataDir: string
  panelKey: string
  users: { alice: { password: string; grants: string[] }; bob: { password: string; grants: string[] } }
  streamKeys: { news: string; sport: string }
} {
  const root = tmpDir(undefined, 'panel-v1-')
  execFileSync('tar', ['xzf', PANEL_V1, '-C', root], { timeout: 30_000 })
  return {
    dataDir: `${root}/panel`,
    panelKey: '0c926b760f392da24fb6d062afdde9e13b470855c22cd3ef9c8d74e88b29dd18',
    users: {
      alice: { password: 'alice-v1-password', grants: ['news', 'sport'] },
      bob: { password: 'bob-v1-password', grants: ['news'] }
    },
    streamKeys: {
      news: '46e14bcceff28ecaaa2b5031d7843fb2765fbc70c77f76e6d1a316fad19e06c3',
      sport: 'f5051b2b610919cf86813836a7a3e29ff9fe964840a4656b081b301ec55a779f'
    }
  }
}
