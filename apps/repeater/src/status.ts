import Fastify, { type FastifyInstance } from 'fastify'
import type { Registry } from '@arus/service'

/** What GET /healthz answers. */
export interface HealthSource { (): Record<string, unknown> }

/**
 * The optional status server (STATUS_PORT): loopback only, unauthenticated, read-only —
 * `GET /healthz` (JSON) and `GET /metrics` (Prometheus text). Nothing else listens.
 */
export async function listenStatusServer (port: number, health: HealthSource, metrics: Registry): Promise<{ app: FastifyInstance; url: string }> {
  const app = Fastify({ logger: false })
  app.get('/healthz', async () => ({ up: true, ...health() }))
  app.get('/metrics', async (_req, reply) => {
    reply.type(metrics.contentType)
    return metrics.metrics()
  })
  await app.listen({ host: '127.0.0.1', port })
  const addr = app.server.address()
  const bound = typeof addr === 'object' && addr !== null ? addr.port : port
  return { app, url: `http://127.0.0.1:${bound}` }
}
