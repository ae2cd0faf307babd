/**
 * `arus-viewer` — a headless viewer on top of `@arus/sdk`: logs in to a panel over the DHT
 * (password from a prompt or stdin), lists the lineup, plays a stream and prints the local HLS
 * URL, then logs status and peer events until SIGINT/SIGTERM. `runCli(argv, io?)` is what the
 * bin runs; tests call it with injected streams.
 * @packageDocumentation
 */
export { buildProgram, runCli } from './cli.js'
export { runViewer } from './run.js'
export { ViewerOptions, parseBootstrapList } from './options.js'
export type { ViewerIO } from './io.js'
