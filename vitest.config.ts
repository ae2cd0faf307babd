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
