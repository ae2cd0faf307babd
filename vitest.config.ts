import { readdirSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))
const deployLane = process.env.ARUS_DEPLOY_LANE === '1'

// Tests run against sources: map every workspace package's name to its src/index.ts.
const alias: Record<string, string> = {}
for (const dir of readdirSync(join(root, 'packages'))) {
  const entry = join(root, 'packages', dir, 'src', 'index.ts')
  if (existsSync(entry)) alias[`@arus/${dir}`] = entry
}

// React Native's platform modules cannot run under Node: @arus/react-native's tests use doubles.
const doubles = join(root, 'packages', 'react-native', 'test', 'doubles')
alias['react-native'] = join(doubles, 'react-native.tsx')
alias['react-native-video'] = join(doubles, 'react-native-video.tsx')
alias['react-native-bare-kit'] = join(doubles, 'react-native-bare-kit.ts')

export default defineConfig({
  resolve: { alias },
  test: {
    // The deploy lane needs a container engine: scripts/test-deploy.sh runs it alone (ARUS_DEPLOY_LANE=1).
    ...(deployLane
      ? { include: ['test/deploy/**/*.test.ts'], fileParallelism: false }
      : { include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/**/*.test.ts'], exclude: ['**/node_modules/**', 'test/deploy/**'] }),
    testTimeout: deployLane ? 600_000 : 60_000,
    hookTimeout: deployLane ? 1_200_000 : 60_000,
    teardownTimeout: 20_000,
    pool: 'forks',
    ...(deployLane ? {} : { fileParallelism: true }),
    maxWorkers: 2
  }
})
