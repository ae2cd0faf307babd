/**
 * @packageDocumentation
 * The Arus VOD library daemon: titles ingested once from files or URLs (probe, remux or
 * transcode to H.264/AAC, HLS VOD rendition) into an encrypted Hyperdrive per title
 * generation, seeded persistently and registered with the panel as type 'vod' under its own
 * publisher, driven through a control API and UI (docs/library.md).
 */
export { buildProgram, runCli } from './cli.js'
export type { CliIO } from '@arus/service'
export { main, type RunningLibrary } from './main.js'
export { libraryEnvSchema, loadLibraryConfig, type LibraryConfig } from './config.js'
export { LibraryError, LIBRARY_ERROR_CODES, type LibraryErrorCode } from './errors.js'
export type { TitleView, TitleState } from './titles/model.js'
