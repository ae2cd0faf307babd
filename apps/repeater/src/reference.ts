import type { DaemonReference } from '@arus/service'
import { buildProgram } from './cli.js'
import { repeaterEnvSchema } from './config.js'
import { REPEATER_ERROR_CODES } from './errors.js'

/**
 * What the kit's docs generator reads of the repeater (docs/repeater.md, .env.example). It has
 * no control API: its optional status server's two routes are described by hand there.
 */
export const repeaterReference: DaemonReference = {
  bin: 'arus-repeater',
  envSchema: repeaterEnvSchema,
  program: buildProgram,
  routes: async () => [],
  errors: REPEATER_ERROR_CODES,
  pages: [{ path: 'docs/repeater.md', sections: ['env', 'cli', 'errors'] }],
  envExample: {
    path: 'apps/repeater/.env.example',
    intro: 'arus-repeater environment (docs/repeater.md has the full table).\nCopy to .env and fill in; an empty value counts as unset. Commented lines show the default.'
  }
}
