import { computeVerifier, generateSigningKeyPair, newSalt, blake2b256, TEST_ARGON, type ArgonCost } from '@arus/crypto'
import {
  buildControlServer, createLogger, createMetricsRegistry, type AdminVerifier, type ControlAuthDeps,
  type ControlServerDeps, type FastifyInstance, type Logger, type Registry, type VerifyWorker
} from '@arus/service'

/** In-memory admins for kit tests: the same Argon2id input rule as the panel (BLAKE2b-256 of the password). */
export interface TestAdmins {
  add(name: string, password: string, cost?: ArgonCost): Promise<void>
  bump(name: string): void
  remove(name: string): void
  verifierInput(name: string, password: string): Promise<AdminVerifier | null>
  currentTokenVersion(name: string): Promise<number | null>
}

const utf8 = (s: string) => new TextEncoder().encode(s)

export function testAdmins (): TestAdmins {
  const map = new Map<string, { salt: Uint8Array; verifier: Uint8Array; cost: ArgonCost; tokenVersion: number }>()
  return {
    async add (name, password, cost = TEST_ARGON) {
      const salt = newSalt()
      map.set(name, { salt, cost, verifier: await computeVerifier(blake2b256(utf8(password)), salt, cost), tokenVersion: 0 })
    },
    bump (name) { map.get(name)!.tokenVersion++ },
    remove (name) { map.delete(name) },
    async verifierInput (name, password) {
      const a = map.get(name)
      return a ? { input: blake2b256(utf8(password)), salt: a.salt, cost: a.cost, verifier: a.verifier, tokenVersion: a.tokenVersion } : null
    },
    async currentTokenVersion (name) { return map.get(name)?.tokenVersion ?? null }
  }
}

/** Collects pino lines. */
export function logSink (): { log: Logger; records: () => Array<Record<string, any>> } {
  const chunks: string[] = []
  const log = createLogger({ name: 'test', level: 'info', destination: { write: (s: string) => { chunks.push(s) } } })
  return { log, records: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) }
}

export interface TestServer {
  app: FastifyInstance
  admins: TestAdmins
  keys: { publicKey: Uint8Array; secretKey: Uint8Array }
  metrics: Registry
  records: () => Array<Record<string, any>>
  login(username?: string, password?: string, remoteAddress?: string): Promise<{ statusCode: number; body: any }>
}

/** A control server with one admin `root` / `root-pw`; closed when the test ends. */
export async function testServer (t: { onTestFinished(fn: () => unknown): void }, over: Partial<ControlServerDeps> & { auth?: Partial<ControlAuthDeps>; verifier?: VerifyWorker } = {}): Promise<TestServer> {
  const admins = testAdmins()
  await admins.add('root', 'root-pw')
  const keys = generateSigningKeyPair()
  const metrics = createMetricsRegistry()
  const { log, records } = logSink()
  const { auth, ...rest } = over
  const app = buildControlServer({
    log,
    info: { title: 'test', version: '0.0.0' },
    metrics,
    ...rest,
    auth: {
      keys,
      currentTokenVersion: admins.currentTokenVersion,
      verifierInput: admins.verifierInput,
      lockout: { threshold: 5, windowSeconds: 60 },
      decoyCost: TEST_ARGON,
      ...auth
    }
  })
  t.onTestFinished(() => app.close())
  const login = async (username = 'root', password = 'root-pw', remoteAddress?: string) => {
    const res = await app.inject({ method: 'POST', url: '/api/login', payload: { username, password }, ...(remoteAddress ? { remoteAddress } : {}) })
    return { statusCode: res.statusCode, body: res.json() }
  }
  return { app, admins, keys, metrics, records, login }
}

export const bearer = (token: string) => ({ authorization: `Bearer ${token}` })
