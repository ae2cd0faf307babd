import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { type ArusError, ServiceError, isArusError } from '../errors.js'

/**
 * The error envelope of every control server: `{ error: { code, message } }` with the
 * status of the code (plus `retryAfter` and a Retry-After header for SERVICE_LOCKED). Errors
 * that are not ArusErrors go through the daemon's `mapError`, then Fastify's own 4xx errors
 * get fixed messages (a JSON parse error would otherwise quote the body), and anything else
 * is a 500 SERVICE_INTERNAL whose details stay in the log.
 */
export type ErrorMapper = (err: unknown) => ArusError | undefined

export function toArusError (err: unknown, mapError?: ErrorMapper): ArusError {
  if (isArusError(err)) return err
  const mapped = mapError?.(err)
  if (mapped !== undefined) return mapped
  const fe = err as { code?: unknown; statusCode?: unknown }
  switch (fe.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE': return ServiceError.payloadTooLarge()
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE': return ServiceError.unsupportedMediaType('unsupported content type')
    case 'FST_ERR_CTP_INVALID_JSON_BODY': return ServiceError.validationFailed('request body is not valid JSON', ['body'])
  }
  if (err instanceof SyntaxError) return ServiceError.validationFailed('request body is not valid JSON', ['body'])
  if (typeof fe.statusCode === 'number' && fe.statusCode >= 400 && fe.statusCode < 500) {
    return ServiceError.validationFailed(`request refused (${typeof fe.code === 'string' ? fe.code : fe.statusCode})`)
  }
  return ServiceError.internal(undefined, err)
}

/** Answers `err` in the envelope (the error handler's body; also Fastify's `frameworkErrors`, see server.ts). */
export function sendError (err: unknown, req: FastifyRequest, reply: FastifyReply, mapError?: ErrorMapper): void {
  const e = toArusError(err, mapError)
  if (e.status >= 500) req.log.error({ err, code: e.code, method: req.method, route: req.routeOptions.url }, 'request failed')
  const body: Record<string, unknown> = { error: { code: e.code, message: e.message } }
  const retryAfter = e.details?.retryAfter
  if (typeof retryAfter === 'number') {
    body.retryAfter = retryAfter
    void reply.header('retry-after', String(retryAfter))
  }
  void reply.code(e.status).send(body)
}

export function installErrorHandling (app: FastifyInstance, mapError?: ErrorMapper): void {
  app.setErrorHandler((err, req, reply) => { sendError(err, req, reply, mapError) })
  app.setNotFoundHandler((req, reply) => {
    const e = ServiceError.notFound(req.method, req.url)
    void reply.code(404).send(e.toJSON())
  })
}
