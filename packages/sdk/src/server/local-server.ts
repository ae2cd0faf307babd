import { SdkError } from '../errors.js'
import type { HttpRequestLike, HttpResponseLike, HttpServerLike, PlayerRuntime } from '../runtime.js'
import { handleRequest, type ServerContext } from './routes.js'

/** The local HLS server: one per engine, 127.0.0.1 only, random port. */
export interface LocalServer {
  readonly port: number
  close(): Promise<void>
}

/**
 * Starts the server on 127.0.0.1:<random port> (ARCHITECTURE.md "Local HLS serving"): GET and
 * HEAD only; `/index.m3u8` and `/seg<N>.ts` of whichever feed is active, `/assets/<path>` art.
 */
export async function startLocalServer (runtime: PlayerRuntime, ctx: ServerContext): Promise<LocalServer> {
  const open = new Set<HttpResponseLike>()
  const server: HttpServerLike = runtime.http.createServer((req: HttpRequestLike, res: HttpResponseLike) => {
    open.add(res)
    res.on('close', () => open.delete(res))
    handleRequest(ctx, req, res).catch(() => {
      if (!res.headersSent) { res.writeHead(500, { 'content-length': 0 }); res.end() } else res.destroy()
    })
  })
  const port = await new Promise<number>((resolve, reject) => {
    const onError = (err: Error): void => reject(SdkError.serverFailed(err))
    server.on('error', onError)
    server.listen(0, '127.0.0.1', () => {
      server.off('error', onError)
      const addr = server.address()
      if (addr === null || typeof addr === 'string') reject(SdkError.serverFailed(new Error('no port')))
      else resolve(addr.port)
    })
  })
  let closing: Promise<void> | null = null
  return {
    port,
    close () {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve())
        for (const res of open) res.destroy()
        server.closeAllConnections?.()
      })
      return closing
    }
  }
}
