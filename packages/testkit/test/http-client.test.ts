import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createHttpClient, type TestContextLike } from '@arus/testkit'

interface Seen { method: string; url: string; auth: string | null; type: string | null; body: string }

/** A fake daemon API: `/api/login` (admin / pw → token t1), `/echo` (what it got), `/text`, `/empty`, `/hang`, `/fail`. */
async function fakeApi (t: TestContextLike): Promise<{ url: string; seen: Seen[] }> {
  const seen: Seen[] = []
  const json = (res: ServerResponse, status: number, value: unknown) => { res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value)) }
  const server = createServer((req: IncomingMessage, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8')
      seen.push({ method: req.method!, url: req.url!, auth: req.headers.authorization ?? null, type: req.headers['content-type'] ?? null, body })
      if (req.url === '/api/login') {
        const { username, password } = JSON.parse(body) as { username: string; password: string }
        return username === 'admin' && password === 'pw' ? json(res, 200, { token: 't1' }) : json(res, 401, { code: 'NO' })
      }
      if (req.url === '/echo') return json(res, 200, seen.at(-1))
      if (req.url === '/text') return res.writeHead(200, { 'content-type': 'text/plain' }).end('plain')
      if (req.url === '/empty') return res.writeHead(200).end()
      if (req.url === '/fail') return json(res, 409, { code: 'TAKEN' })
      // /hang: never answers
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.onTestFinished(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen }
}

describe('createHttpClient', () => {
  it('logs in once, lazily, then sends the bearer token with JSON bodies', async (t) => {
    const { url, seen } = await fakeApi(t)
    const http = createHttpClient(url, { login: { name: 'admin', password: 'pw' } })
    expect(seen).toEqual([])
    const echo = await http.api<Seen>('POST', '/echo', { a: 1 })
    expect(echo).toMatchObject({ method: 'POST', auth: 'Bearer t1', type: 'application/json', body: '{"a":1}' })
    await http.api('GET', '/echo')
    expect(seen.filter((s) => s.url === '/api/login')).toHaveLength(1)
    http.reset()
    await http.api('GET', '/echo')
    expect(seen.filter((s) => s.url === '/api/login')).toHaveLength(2)
  })

  it('sends bytes raw with their content type; reads text and empty bodies', async (t) => {
    const { url } = await fakeApi(t)
    const http = createHttpClient(url, { token: 'given' })
    expect(await http.api('PUT', '/echo', new Uint8Array([104, 105]), { contentType: 'image/png' })).toMatchObject({ auth: 'Bearer given', type: 'image/png', body: 'hi' })
    expect((await http.api<Seen>('PUT', '/echo', new Uint8Array([1]))).type).toBe('application/octet-stream')
    expect(await http.call('GET', '/text')).toEqual({ status: 200, body: 'plain' })
    expect(await http.api('GET', '/empty')).toBeNull()
  })

  it('call never throws on the status; api throws with the status and body; a refused login throws', async (t) => {
    const { url } = await fakeApi(t)
    const http = createHttpClient(url)
    expect(await http.call('POST', '/fail')).toEqual({ status: 409, body: { code: 'TAKEN' } })
    await expect(http.api('POST', '/fail')).rejects.toThrow(/POST .*\/fail: 409 \{"code":"TAKEN"\}/)
    await expect(createHttpClient(url, { login: { name: 'admin', password: 'wrong' } }).call('GET', '/echo')).rejects.toThrow(/login as admin .*: 401/)
  })

  it('bounds every request, and a caller signal aborts one', async (t) => {
    const { url } = await fakeApi(t)
    const started = Date.now()
    await expect(createHttpClient(url, { timeoutMs: 200 }).call('GET', '/hang')).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(5000)
    const stop = new AbortController()
    const pending = createHttpClient(url).call('GET', '/hang', undefined, { signal: stop.signal })
    stop.abort()
    await expect(pending).rejects.toThrow()
  })
})
