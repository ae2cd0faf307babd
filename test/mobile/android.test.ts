import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  ENGINE_MESSAGE_TYPES, EngineCommand, EngineMessageSchema, INITIAL_HOST_STATE, LineDecoder, applyEngineMessage,
  type EngineMessage, type HostState
} from '@arus/engine-protocol'
import { cleanupAll, spawnProcess, tmpDir, type Stack, type TestContextLike } from '@arus/testkit'
import { BARE, engineStack } from './worklet-host.js'

// Issue 20 (and issue 44 item 9: protocol 2): the native Android SDK's platform-free Kotlin core (mobile/android) checked against
// the TypeScript reference: the transcript fixtures replayed to the same parsed messages and
// states as @arus/engine-protocol's reduction, and the Kotlin IPC client driving the real engine
// bundle under Bare on a local testnet (ffmpeg decodes the URL it reports). The Kotlin unit
// tests run in `bash mobile/android/scripts/test.sh` (scripts/test.sh calls it before vitest).

const root = fileURLToPath(new URL('../../', import.meta.url))
const android = join(root, 'mobile', 'android')
const fixturesDir = join(root, 'packages', 'sdk', 'ipc-fixtures')
const ctx = { onTestFinished: () => {} }
let classpath: string

beforeAll(() => {
  // Up to date (a hash of the sources) when scripts/test.sh already built it: no compile then.
  const r = spawnSync('bash', [join(android, 'scripts', 'build.sh')], { encoding: 'utf8', timeout: 600_000 })
  if (r.status !== 0) throw new Error(`mobile/android build failed (${String(r.status ?? r.signal)}): ${r.stderr}`)
  classpath = r.stdout.trim().split('\n').pop()!
}, 600_000)

afterAll(async () => { await cleanupAll() }, 60_000)

/** Runs JUnit classes of the Kotlin build in a JVM (bounded); resolves the exit code and all output. */
async function junit (t: TestContextLike, classes: string[], init: { props?: string[]; env?: Record<string, string>; timeoutMs: number }): Promise<{ code: number | null; out: string }> {
  const args = ['-cp', classpath, `-Darus.root=${root}`, ...(init.props ?? []), 'org.junit.runner.JUnitCore', ...classes]
  const proc = spawnProcess(t, 'java', args, { env: init.env, timeoutMs: init.timeoutMs })
  const { code } = await proc.waitForExit(init.timeoutMs + 5000)
  return { code, out: `${proc.stdoutLines().join('\n')}\n${proc.stderrText()}` }
}

const KNOWN = new Set<string>(ENGINE_MESSAGE_TYPES)

/** What the React Native backend does with one decoded line: deliver it parsed, or drop it. */
function judge (value: Record<string, unknown>): { outcome: 'message' | 'invalid' | 'unknown'; parsed: EngineMessage | null } {
  if (typeof value.type !== 'string' || !KNOWN.has(value.type)) return { outcome: 'unknown', parsed: null }
  const parsed = EngineMessageSchema.safeParse(value)
  return parsed.success ? { outcome: 'message', parsed: parsed.data as EngineMessage } : { outcome: 'invalid', parsed: null }
}

/** The Kotlin model does not tell an absent optional-nullable field from null (the reduction treats both alike). */
function normalize (msg: EngineMessage | null): Record<string, unknown> | null {
  if (msg === null) return null
  const out: Record<string, unknown> = { ...msg }
  if (msg.type === 'status' && msg.feedKey === null) delete out.feedKey
  if (msg.type === 'error' && msg.streamId === null) delete out.streamId
  return out
}

/** Lines beyond the fixtures: decoder drops, invalid and unknown messages, the reduction's corners. */
const EXTRA_LINES = [
  'this is not json', '[1,2,3]', '"text"', "{'single':'quotes'}", '{"a":1} trailing',
  '{"type":"port","v":1}', '{"type":"port","v":1,"port":41303}', '{"type":"port","v":1,"port":70000}', '{"type":"port","v":1.0,"port":1e2}',
  '{"type":"from-the-future","x":1}', '{"noType":true}', '{"type":7}',
  '{"type":"streams","streams":[{"id":"news","title":"News","type":"live","poster":"","extra":{"a":[1,2]}},{"id":"vod.film","title":"Film","type":"vod"}]}',
  '{"type":"streams","streams":[{"id":"a","title":"A","type":"radio"}]}',
  '{"type":"status","state":"playing","streamId":"news","url":"http://127.0.0.1:41303/index.m3u8","source":"p2p","mediaType":"live","feedKey":"k1","newField":1}',
  '{"type":"status","state":"feed:retune","streamId":"news"}',
  '{"type":"status","state":"peers","streamId":"news","peers":4}',
  '{"type":"status","state":"peers","streamId":"news","peers":-1}',
  '{"type":"feed-changed","streamId":"other","feedKey":"x","url":"u"}',
  '{"type":"feed-changed","streamId":"news","feedKey":"k2","url":"http://127.0.0.1:41303/index.m3u8"}',
  '{"type":"status","state":"playing","streamId":"news","feedKey":null}',
  '{"type":"status","state":"playing","streamId":null,"url":"http://127.0.0.1:41303/index.m3u8","source":"cdn"}',
  `{"type":"status","state":"playing","streamId":"x","url":"${'u'.repeat(2049)}"}`,
  '{"type":"status","state":"playing","streamId":"x","url":null}',
  '{"type":"error","code":"SDK_TUNE_TIMEOUT","message":"could not tune in","cmd":"play","id":2,"streamId":"news"}',
  '{"type":"error","code":"X","message":"m","id":null}',
  '{"type":"error","code":"X","message":"m","streamId":null}',
  '{"type":"login-error","code":"SDK_LOGIN_LOCKED","message":"locked","retryable":true,"retryAfter":30,"id":"a"}',
  '{"type":"login-error","code":"SDK_WRONG_PASSWORD","message":"m"}',
  '{"type":"zap-prefetch","enabled":true}', '{"type":"zap-prefetch","state":"paused"}',
  '{"type":"prefs","creds":{"username":"alice","password":"pw","extra":1},"favorites":["news"]}',
  '{"type":"prefs","creds":null}',
  '{"type":"fallback"}', '{"type":"source-changed","x":1}',
  '{"type":"prefs","creds":null,"favorites":[]}',
  // Protocol 2.
  '{"type":"report","channel":"news","category":"buffering","status":"locked","retryAfter":120,"id":7,"extra":true}',
  '{"type":"report","channel":"news","category":"too-loud","status":"sent"}',
  '{"type":"report","channel":"news","category":"login","status":"sent","retryAfter":-1}',
  '{"type":"epg","epgUrl":"https://g/e.json","epgId":"n","now":{"title":"A","start":"s","stop":"e","desc":"x"},"next":[{"title":"B","start":"s2","stop":"e2"}],"loaded":true}',
  '{"type":"epg","epgUrl":"https://g/e.json","epgId":"n","now":null,"next":[],"loaded":false,"id":"g"}',
  '{"type":"epg","epgUrl":"https://g/e.json","epgId":"n","next":[],"loaded":true}',
  '{"type":"epg","epgUrl":"https://g/e.json","epgId":"n","now":null,"next":[{"title":"B"}],"loaded":true}',
  '{"type":"vod-provider","provider":{"enabled":false,"apiBase":"https://v/api","service":"s","sources":{"series":"s1","other":"x"},"params":{}}}',
  '{"type":"vod-provider","provider":null,"id":"v"}',
  '{"type":"vod-provider","provider":{"enabled":true,"apiBase":"https://v/api","service":"s","sources":{},"params":{"n":1}}}',
  '{"type":"upload-policy","policy":"reseed","rejoined":2}', '{"type":"upload-policy","policy":"both","rejoined":0}',
  '{"type":"upload-policy","policy":"reseed","rejoined":1.5}',
  '{"type":"prewarm","warmed":3,"id":"p"}', '{"type":"prewarm","warmed":-1}',
  '{"type":"session-live","live":true}', '{"type":"session-live","live":"yes"}',
  '{"type":"recovered","message":"store purged","code":"SDK_STORE_CORRUPT"}', '{"type":"recovered"}'
]

/** Every fixture's received messages and the extra lines through the TypeScript reference. */
function tsExpectations (): unknown {
  const fixtures: Record<string, unknown> = {}
  for (const file of readdirSync(fixturesDir).filter((f) => f.endsWith('.json'))) {
    const fixture = JSON.parse(readFileSync(join(fixturesDir, file), 'utf8')) as { sessions: Array<{ steps: Array<Record<string, any>> }> }
    fixtures[file] = {
      sessions: fixture.sessions.map((session) => {
        let state: HostState = INITIAL_HOST_STATE
        return {
          steps: session.steps.map((step) => {
            if ('receive' in step) {
              const { outcome, parsed } = judge(step.receive)
              if (parsed !== null) state = applyEngineMessage(state, parsed)
              return { receive: { delivered: outcome === 'message', parsed: normalize(parsed), state } }
            }
            if ('send' in step) return { send: { valid: EngineCommand.safeParse(step.send).success } }
            return { other: true }
          })
        }
      })
    }
  }
  let state: HostState = INITIAL_HOST_STATE
  const lines = EXTRA_LINES.map((line) => {
    let result: { outcome: string; parsed: EngineMessage | null } = { outcome: 'none', parsed: null }
    new LineDecoder((value) => { result = judge(value) }, (drop) => { result = { outcome: `dropped:${drop.reason}`, parsed: null } }).push(`${line}\n`)
    if (result.parsed !== null) state = applyEngineMessage(state, result.parsed)
    return { line, outcome: result.outcome, parsed: normalize(result.parsed), state }
  })
  return { fixtures, lines }
}

describe('the Kotlin core and the TypeScript reference', () => {
  it('replays the IPC transcript fixtures to the same command lines, parsed messages and host states as @arus/engine-protocol', async (t) => {
    const file = join(tmpDir(t, 'arus-android-ts-'), 'ts-expectations.json')
    const expectations = tsExpectations() as { lines: Array<{ outcome: string }> }
    // The extra lines cover every outcome, so the Kotlin side is checked on each.
    expect(new Set(expectations.lines.map((l) => l.outcome))).toEqual(new Set(['dropped:not-json', 'dropped:not-an-object', 'message', 'invalid', 'unknown']))
    writeFileSync(file, JSON.stringify(expectations))
    const r = await junit(t, ['app.arus.sdk.FixtureReplayTest'], { props: [`-Darus.tsExpectations=${file}`], timeoutMs: 60_000 })
    expect(r.code, r.out).toBe(0)
    expect(r.out).toMatch(/OK \(3 tests\)/)
    // Not skipped: the Kotlin test says how much it compared.
    const fixtures = readdirSync(fixturesDir).filter((f) => f.endsWith('.json')).length
    expect(r.out).toMatch(new RegExp(`ts-compared: ${fixtures} fixtures, [1-9]\\d* received messages`))
    expect(r.out).toContain(`ts-compared: ${EXTRA_LINES.length} extra lines`)
  }, 90_000)
})

describe('the Kotlin core with the real engine under Bare', () => {
  let stack: Stack
  let bundle: string

  beforeAll(async () => {
    ({ stack, bundle } = await engineStack(ctx))
  }, 240_000)

  it('starts the engine bundle as a child process, logs in, plays a channel ffmpeg decodes, and stops it', async (t) => {
    const env = {
      ARUS_BARE: BARE,
      ARUS_BUNDLE: bundle,
      ARUS_DATA_DIR: tmpDir(t, 'arus-android-data-'),
      ARUS_BOOTSTRAP: stack.testnet!.bootstrap.map((n) => `${n.host}:${n.port}`).join(','),
      ARUS_PANEL_KEY: stack.panel.panelKey,
      ARUS_USERNAME: 'alice',
      ARUS_PASSWORD: 'alice-pw',
      ARUS_STREAM_ID: 'news'
    }
    const r = await junit(t, ['app.arus.sdk.EngineIntegration'], { env, timeoutMs: 300_000 })
    expect(r.code, r.out).toBe(0)
    // JUnit reports a skipped (assumption) test as OK too: the Kotlin test prints what it played.
    expect(r.out).toMatch(/integration: played news at http:\/\/127\.0\.0\.1:\d+\/index\.m3u8/)
    expect(r.out).not.toContain('alice-pw')
  }, 330_000)
})
