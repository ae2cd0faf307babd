import { describe, expect, it } from 'vitest'
import { hlsArgs } from '../../src/channels/ffmpeg-args.js'
import { backoffFor, publisherGraceMs } from '../../src/pipeline/backoff.js'

describe('the push publisher grace', () => {
  it('is the backoff SLATE_AFTER consecutive failed respawns wait through', () => {
    const defaults = { backoffMinMs: 1000, backoffMaxMs: 30_000 }
    expect([1, 2, 3, 4].map((n) => backoffFor(defaults, n))).toEqual([1000, 2000, 4000, 8000])
    expect(publisherGraceMs({ ...defaults, slateAfter: 3 })).toBe(3000)
    expect(publisherGraceMs({ ...defaults, slateAfter: 1 })).toBe(0)
    expect(publisherGraceMs({ backoffMinMs: 200, backoffMaxMs: 1000, slateAfter: 5 })).toBe(200 + 400 + 800 + 1000)
  })

  it('lets the listener beside the slate continue the playlist in its dir (append_list)', () => {
    const out = { dir: '/s', hlsTime: 2, hlsListSize: 4, startNumber: 7 }
    expect(hlsArgs(out).join(' ')).not.toContain('append_list')
    expect(hlsArgs({ ...out, appendList: true }).join(' ')).toContain('+append_list')
  })
})
