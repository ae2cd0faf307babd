import { readdirSync, existsSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'

const root = fileURLToPath(new URL('.', import.meta.url))

// Tests run against sources: map every workspace package's name to its src/index.ts.
const alias: Record<string, string> = {}
for (const dir of readdirSync(join(root, 'packages'))) {
  const entry = join(root, 'packages', dir, 'src', 'index.ts')
  if (existsSync(entry)) alias[`@arus/${dir}`] = entry
}

export default defineConfig({
  resolve: { alias },
  test: {
    include: ['packages/*/test/**/*.test.ts', 'apps/*/test/**/*.test.ts', 'test/**/*.test.ts'],
    // The deploy lane needs a container engine: scripts/test-deploy.sh runs it (vitest.deploy.config.ts).
    exclude: ['**/node_modules/**', 'test/deploy/**'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    teardownTimeout: 20_000,
    pool: 'forks',
    fileParallelism: true,
    maxWorkers: 2
  }
})
