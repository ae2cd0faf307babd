#!/usr/bin/env node
import { runCli } from '../dist/cli.js'

runCli(process.argv).then((code) => { process.exitCode = code })
