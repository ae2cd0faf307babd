import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { SWARM_ERROR_CODES, SwarmError } from '@arus/swarm'

describe('SWARM_ERROR_CODES', () => {
  it('are prefixed SCREAMING_SNAKE codes', () => {
    for (const code of Object.keys(SWARM_ERROR_CODES)) expect(code).toMatch(/^SWARM_[A-Z]+(_[A-Z]+)*$/)
  })

  it('match the README errors table exactly (code and meaning)', () => {
    const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8')
    const rows = [...readme.matchAll(/^\| `(SWARM_[A-Z_]+)` \| (.+) \|$/gm)].map((m) => [m[1], m[2]])
    expect(Object.fromEntries(rows)).toEqual(SWARM_ERROR_CODES)
  })

  it('SwarmError carries its code and name', () => {
    const err = new SwarmError('SWARM_BAD_KEY', 'x')
    expect(err).toBeInstanceOf(Error)
    expect(err.code).toBe('SWARM_BAD_KEY')
    expect(err.name).toBe('SwarmError')
  })
})
