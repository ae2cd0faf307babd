/**
 * The host-runtime seam (spec 3 "What the service does" 6): the engine core touches the
 * network server and the file system only through these injected modules, so it can run in
 * Node (the default factory, `node-runtime.ts`) or later in a Bare worklet. The shapes are the
 * subset of Node's `http` and `fs/promises` the engine uses; Node's own modules satisfy them.
 */

/** An incoming request (Node: `http.IncomingMessage`). */
export interface HttpRequestLike {
  method?: string | undefined
  url?: string | undefined
  headers: Record<string, string | string[] | undefined>
  on(event: 'close', fn: () => void): unknown
}

/** A response (Node: `http.ServerResponse`). */
export interface HttpResponseLike {
  readonly headersSent: boolean
  readonly writableEnded: boolean
  readonly destroyed: boolean
  writeHead(status: number, headers?: Record<string, string | number>): unknown
  write(chunk: Uint8Array | string): boolean
  end(chunk?: Uint8Array | string): unknown
  destroy(err?: Error): unknown
  on(event: 'drain' | 'close' | 'error', fn: (...args: any[]) => void): unknown
  off(event: 'drain' | 'close' | 'error', fn: (...args: any[]) => void): unknown
}

/** A listening server (Node: `http.Server`). */
export interface HttpServerLike {
  listen(port: number, host: string, cb: () => void): unknown
  address(): { port: number } | string | null
  close(cb?: (err?: Error) => void): unknown
  closeAllConnections?(): void
  on(event: 'error', fn: (err: Error) => void): unknown
  off(event: 'error', fn: (err: Error) => void): unknown
}

/** Node: the `http` module. */
export interface HttpModule {
  createServer(handler: (req: HttpRequestLike, res: HttpResponseLike) => void): HttpServerLike
}

/** Node: `fs/promises`. */
export interface FsModule {
  mkdir(path: string, opts: { recursive: true; mode?: number }): Promise<unknown>
  rm(path: string, opts: { recursive: true; force: true }): Promise<void>
  readFile(path: string): Promise<Uint8Array>
  writeFile(path: string, data: Uint8Array | string, opts: { mode: number }): Promise<void>
  rename(from: string, to: string): Promise<void>
}

/** What the engine core needs from its host runtime. */
export interface PlayerRuntime {
  http: HttpModule
  fs: FsModule
}

/** Joins path segments with '/', which every supported runtime accepts. */
export function joinPath (...parts: string[]): string {
  return parts.map((p, i) => (i === 0 ? p.replace(/[/\\]+$/, '') : p.replace(/^[/\\]+|[/\\]+$/g, ''))).filter((p) => p !== '').join('/')
}

/** The default factory, loaded lazily so the core never imports Node built-ins itself. */
export async function defaultRuntime (): Promise<PlayerRuntime> {
  const { nodeRuntime } = await import('./node-runtime.js')
  return nodeRuntime()
}
