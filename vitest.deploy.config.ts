import { defineConfig, mergeConfig } from 'vitest/config'
import base from './vitest.config.js'

// The deploy lane (scripts/test-deploy.sh): test/deploy on a real container engine, one file at a time.
export default mergeConfig(base, defineConfig({
  test: { include: ['test/deploy/**/*.test.ts'], exclude: [], fileParallelism: false, testTimeout: 600_000, hookTimeout: 1_200_000 }
}))
