/**
 * Every daemon's reference description, for the kit's docs generator: read by
 * scripts/gen-docs.ts (writes the pages) and test/docs/reference.test.ts (fails while one is
 * stale). A new daemon adds its `src/reference.ts` here.
 */
import { fileURLToPath } from 'node:url'
import type { DaemonReference } from '@arus/service'
import { broadcasterReference } from '../../apps/broadcaster/src/reference.js'
import { libraryReference } from '../../apps/library/src/reference.js'
import { panelReference } from '../../apps/panel/src/reference.js'
import { repeaterReference } from '../../apps/repeater/src/reference.js'
import { resellerReference } from '../../apps/reseller/src/reference.js'

/** The repository root (the pages' paths are relative to it). */
export const REPO_ROOT = fileURLToPath(new URL('../../', import.meta.url))

/** The command that rewrites every generated section and `.env.example`. */
export const GEN_DOCS_COMMAND = 'pnpm exec tsx scripts/gen-docs.ts'

export const REFERENCES: readonly DaemonReference[] = [panelReference, broadcasterReference, libraryReference, resellerReference, repeaterReference]
