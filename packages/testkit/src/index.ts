/**
 * @packageDocumentation
 * `@arus/testkit` (private): test helpers that clean up after themselves — a local DHT
 * testnet on 127.0.0.1, temp dirs and stores, a log sink, child-process control, bounded
 * waits, /proc reads of child priorities, and the real daemons as processes: `startPanel`, `startBroadcaster` and
 * `createStack` (testnet + panel + broadcasters), the one-shot bins (`runBin`), a small
 * client of their HTTP APIs, an ffmpeg decode check and `fuzzRoutes` (every route of a
 * running daemon with hostile path parameters and bodies, and a state fingerprint).
 *
 * Teardown pattern: pass the vitest test context as the first argument
 * (`it('x', async (t) => { const net = await createTestnet(t) })`) and the helper registers
 * its teardown with `t.onTestFinished`. Every helper also records its teardown on a
 * module-level list: a helper made without `t` (e.g. in `beforeAll`) is torn down by its
 * own `close()`/`destroy()`/`stop()` or by `cleanupAll()` in `afterAll`. Each teardown runs
 * at most once whichever route reaches it first.
 */
export { TestkitError, TESTKIT_ERROR_CODES } from './errors.js'
export type { TestkitErrorCode } from './errors.js'
export { cleanupAll, pendingTeardowns, registerTeardown } from './teardown.js'
export type { TestContextLike } from './teardown.js'
export { createTestnet } from './testnet.js'
export type { Testnet, TestnetInit } from './testnet.js'
export { tmpDir, tmpStore } from './tmp.js'
export { createLogSink } from './log-sink.js'
export type { LogSink } from './log-sink.js'
export { spawnProcess } from './process.js'
export type { ExitStatus, SpawnedProcess, SpawnInit } from './process.js'
export { freePort, waitFor, withTimeout } from './wait.js'
export type { WaitForInit } from './wait.js'
export { createHttpClient } from './http-client.js'
export type { HttpCallOptions, HttpClient, HttpClientInit, HttpLogin, HttpReply } from './http-client.js'
export { runCliInProcess } from './cli.js'
export type { CliStreams, InProcessInit, InProcessResult } from './cli.js'
export { ARUS_BINS, runBin, runBinJson, spawnBroadcasterDaemon, spawnLibraryDaemon, spawnPanelDaemon, spawnRepeaterDaemon, spawnResellerDaemon, spawnTestnetDaemon } from './daemons.js'
export type { CliResult, DaemonInit, RunBinInit, SpawnedDaemon } from './daemons.js'
export { PANEL_TEST_ENV, startPanel } from './panel.js'
export type { PanelHandle, PanelInit } from './panel.js'
export { BROADCASTER_TEST_ENV, LIGHT_CHANNEL, startBroadcaster } from './broadcaster.js'
export type { BroadcasterHandle, BroadcasterInit, PanelRef } from './broadcaster.js'
export { LIBRARY_TEST_ENV, startLibrary } from './library.js'
export { startRepeater } from './repeater.js'
export type { RepeaterHandle, RepeaterInit, RepeaterMirror } from './repeater.js'
export type { LibraryHandle, LibraryInit } from './library.js'
export { RESELLER_TEST_ENV, startReseller } from './reseller.js'
export type { ResellerHandle, ResellerInit, ResellerPanelRef } from './reseller.js'
export { createStack } from './stack.js'
export type { Stack, StackBroadcasterInit, StackInit } from './stack.js'
export { decodeWithFfmpeg } from './ffmpeg.js'
export { ADMIN_ROUTES, fileFingerprint, fuzzRoutes, KIT_ROUTES, listRoutes, stateFingerprint, VOLATILE_KEYS } from './route-fuzz.js'
export type { FingerprintInit, FuzzFailure, FuzzReport, FuzzRoute, FuzzRoutesInit } from './route-fuzz.js'
export { HOSTILE_BODIES, HOSTILE_SEGMENTS, plausibleValue } from './fuzz-inputs.js'
export type { HostileBody, JsonSchema } from './fuzz-inputs.js'

export { childPriorities, type ProcessPriority } from './procfs.js'
export type { DecodeInit, DecodeResult } from './ffmpeg.js'
export { collectSecrets, envSecrets, ENV_SECRET_VARIABLES, findSecrets, SECRET_KINDS } from './secrets.js'
export type { SecretKind, SecretValue } from './secrets.js'
export { linkToPanel } from './panel-link.js'
export type { PanelLink } from './panel-link.js'
export { startHttpsFixture } from './https-fixture.js'
export { startSshd } from './sshd.js'
export type { Sshd } from './sshd.js'
export type { FixtureResponse, HttpsFixture } from './https-fixture.js'
export { viewerLogin, WrongPasswordError } from './viewer-login.js'
export type { ViewerLogin } from './viewer-login.js'
export { panelV1Fixture } from './fixtures.js'
export { seededRandom } from './random.js'
