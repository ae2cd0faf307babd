import { z } from 'zod'

/** Command-line options of `arus-viewer` (validated once; a bad one exits 2 naming it). */
export const ViewerOptions = z.object({
  panelKey: z.string().regex(/^[0-9a-fA-F]{64}$/, 'expected the panel public key, 64 hex characters'),
  user: z.string().min(1).max(64),
  bootstrap: z.array(z.object({ host: z.string().min(1), port: z.number().int().min(1).max(65535) })),
  play: z.string().min(1).max(64).optional(),
  storeDir: z.string().min(1),
  uploadPolicy: z.enum(['reseed', 'client-only']),
  /** The SDK's server.allowOrigin: CORS opt-in for a browser page of another origin (default: none). */
  allowOrigin: z.string().min(1).max(2048).optional(),
  json: z.boolean()
})
export type ViewerOptions = z.infer<typeof ViewerOptions>

/** `host:port,host:port` (repeatable) → nodes; throws naming the bad entry. */
export function parseBootstrapList (values: string[]): Array<{ host: string; port: number }> {
  return values.flatMap((v) => v.split(',')).map((s) => s.trim()).filter((s) => s !== '').map((entry) => {
    const m = /^(.+):(\d{1,5})$/.exec(entry)
    const port = m === null ? NaN : Number(m[2])
    if (m === null || !(port >= 1 && port <= 65535)) throw new Error(`--bootstrap: "${entry}" is not host:port`)
    return { host: m[1] as string, port }
  })
}
