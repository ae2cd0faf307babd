#!/usr/bin/env node
import '../dist/bin/testnet.js'
