#!/usr/bin/env node
import { runCli } from '../dist/cli.js'

runCli(process.argv).then((code) => { process.exitCode = code }, (err) => { process.stderr.write(`arus-mcp: ${err.stack ?? err}\n`); process.exitCode = 1 })
