/**
 * @packageDocumentation
 * The Arus repeater daemon: a keyless super-peer. Configured with a panel's public key only,
 * it follows the panel's public catalog and mirrors the selected records' feed cores by key
 * (`feedKey`, `blobsKey`) as raw encrypted blocks — a live channel as a moving window, a VOD
 * title whole — within a disk budget, announcing each feed's topic so viewers fetch from it
 * beside the origin (docs/repeater.md).
 */
export { buildProgram, runCli } from './cli.js'
export { main, type RunningRepeater } from './main.js'
export { repeaterEnvSchema, loadRepeaterConfig, type RepeaterConfig } from './config.js'
export { RepeaterError, REPEATER_ERROR_CODES, type RepeaterErrorCode } from './errors.js'
export { parseSelection, selects, type Selection } from './selection.js'
