import { describe, expect, it } from 'vitest'
import { hlsArgs, liveArgs, planOutput, slateArgs } from '../../src/channels/ffmpeg-args.js'
import { inputFingerprint, parseCategory, parseInput, parseTranscode, sourcesOf } from '../../src/channels/input.js'

const code = (fn: () => unknown) => {
  try { fn() } catch (err) { return (err as { code?: string; status?: number }) }
  return null
}

describe('parseInput', () => {
  it('reads shorthand kinds, URLs and paths', () => {
    expect(parseInput('test')).toEqual({ kind: 'test' })
    expect(parseInput('RTMP')).toEqual({ kind: 'rtmp', app: 'live' })
    expect(parseInput('srt')).toEqual({ kind: 'srt' })
    expect(parseInput('udp')).toEqual({ kind: 'udp' })
    expect(parseInput('https://cdn.example/live/index.m3u8')).toEqual({ kind: 'pull', url: 'https://cdn.example/live/index.m3u8', fallbacks: [] })
    expect(parseInput('rtmp://origin.example/live/key')).toEqual({ kind: 'pull', url: 'rtmp://origin.example/live/key', fallbacks: [] })
    expect(parseInput('/srv/media/loop.mp4')).toEqual({ kind: 'file', path: '/srv/media/loop.mp4' })
    expect(parseInput('file:///srv/media/a%20b.mp4')).toEqual({ kind: 'file', path: '/srv/media/a b.mp4' })
  })

  it('takes typed objects, and stringified objects parsed back', () => {
    const pull = { kind: 'pull', url: 'http://a.example/x.m3u8', fallbacks: ['http://b.example/x.m3u8'] }
    expect(parseInput(pull)).toEqual(pull)
    expect(parseInput(JSON.stringify(pull))).toEqual(pull)
    expect(parseInput(`  ${JSON.stringify({ kind: 'rtmp', port: 1940 })}`)).toEqual({ kind: 'rtmp', port: 1940, app: 'live' })
  })

  it('refuses with 400 a stringified object that does not parse, and never stores it as a path', () => {
    for (const bad of ['{kind: pull}', '{"kind":"pull"', '[1,2', '{"kind":"file"}', '{"kind":"pull","url":"ftp://x/y"}', '["test"]']) {
      const err = code(() => parseInput(bad))
      expect(err, bad).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT', status: 400 })
    }
  })

  it('refuses bad shapes with a message naming the field', () => {
    expect(code(() => parseInput(''))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
    expect(code(() => parseInput(42))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
    expect(code(() => parseInput('gopher://x/y'))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
    expect(code(() => parseInput('file'))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
    expect(code(() => parseInput('/tmp/a\nb'))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
    expect((code(() => parseInput({ kind: 'rtmp', port: 70000 })) as Error).message).toMatch(/^input\.port/)
    expect((code(() => parseInput({ kind: 'test', extra: 1 })) as Error).message).toMatch(/^input/)
  })
})

describe('parseTranscode', () => {
  it('null clears, objects and their JSON text set', () => {
    expect(parseTranscode(null)).toBeNull()
    expect(parseTranscode('null')).toBeNull()
    expect(parseTranscode({ width: 320, height: 180 })).toEqual({ video: 'auto', audio: 'auto', width: 320, height: 180 })
    expect(parseTranscode('{"video":"h264","preset":"ultrafast"}')).toEqual({ video: 'h264', audio: 'auto', preset: 'ultrafast' })
  })

  it('refuses unparseable text and bad values with 400', () => {
    for (const bad of ['{video: h264}', 'copy', { width: 321 }, { preset: 'warp' }, [1]]) {
      expect(code(() => parseTranscode(bad)), JSON.stringify(bad)).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT', status: 400 })
    }
  })
})

describe('categories, fingerprints and sources', () => {
  it('parses categories from arrays or comma lists', () => {
    expect(parseCategory('News, Sport,,')).toEqual(['News', 'Sport'])
    expect(parseCategory(['A'])).toEqual(['A'])
    expect(code(() => parseCategory(Array.from({ length: 17 }, () => 'x')))).toMatchObject({ code: 'BROADCASTER_INVALID_INPUT' })
  })

  it('fingerprints the source only: same input same print, key order irrelevant', () => {
    const a = parseInput({ kind: 'pull', url: 'http://a.example/x', fallbacks: [] })
    const b = parseInput('{"fallbacks":[],"url":"http://a.example/x","kind":"pull"}')
    expect(inputFingerprint(a)).toBe(inputFingerprint(b))
    expect(inputFingerprint(a)).not.toBe(inputFingerprint(parseInput('http://a.example/y')))
  })

  it('lists the pull URL before its fallbacks', () => {
    expect(sourcesOf(parseInput({ kind: 'pull', url: 'http://a/x', fallbacks: ['http://b/x'] }))).toEqual(['http://a/x', 'http://b/x'])
    expect(sourcesOf(parseInput('test'))).toEqual(['test'])
  })
})

describe('ffmpeg arguments', () => {
  const out = { dir: '/s', hlsTime: 2, hlsListSize: 5, startNumber: 0 }

  it('test: lavfi pattern and tone, always encoded, keyframes on segment boundaries', () => {
    const input = parseInput('test')
    const plan = planOutput(input, parseTranscode({ width: 320, height: 180, preset: 'ultrafast' }), null)
    const args = liveArgs(input, 'test', plan, out, '0.0.0.0', 'ch')
    const line = args.join(' ')
    expect(line).toContain('-f lavfi -i testsrc2=size=320x180:rate=25')
    expect(line).toContain('sine=frequency=440')
    expect(line).toContain('-c:v libx264 -preset ultrafast')
    expect(line).toContain('-force_key_frames expr:gte(t,n_forced*2)')
    expect(line).toContain('-c:a aac')
    expect(line).toContain('-hls_segment_filename /s/seg%d.ts /s/index.m3u8')
  })

  it('file: looped in real time; copy when the codecs allow, h264/aac otherwise', () => {
    const input = parseInput('/m/a.mp4')
    const copy = planOutput(input, null, { videoCodec: 'h264', audioCodec: 'aac', width: 640, height: 360 })
    expect(copy).toMatchObject({ videoCopy: true, audioCopy: true })
    expect(liveArgs(input, '/m/a.mp4', copy, out, '0.0.0.0', 'ch').join(' ')).toContain('-re -stream_loop -1 -i /m/a.mp4')
    const encode = planOutput(input, null, { videoCodec: 'mpeg2video', audioCodec: 'mp2', width: 720, height: 576 })
    expect(encode).toMatchObject({ videoCopy: false, audioCopy: false })
    expect(liveArgs(input, '/m/a.mp4', encode, out, '0.0.0.0', 'ch').join(' ')).not.toContain('-c:v copy')
    expect(planOutput(input, parseTranscode({ width: 320 }), { videoCodec: 'h264', audioCodec: 'aac', width: 640, height: 360 }).videoCopy).toBe(false)
  })

  it('pull: the chosen source URL; push kinds listen on their port', () => {
    const pull = parseInput({ kind: 'pull', url: 'http://a/x.m3u8', fallbacks: ['http://b/x.m3u8'] })
    const plan = planOutput(pull, null, null)
    expect(liveArgs(pull, 'http://b/x.m3u8', plan, out, '0.0.0.0', 'ch').join(' ')).toContain('-i http://b/x.m3u8')
    const rtmp = parseInput({ kind: 'rtmp', port: 1940 })
    expect(liveArgs(rtmp, 'rtmp', planOutput(rtmp, null, null), out, '0.0.0.0', 'ch').join(' ')).toContain('-listen 1 -i rtmp://0.0.0.0:1940/live/ch')
    const srt = parseInput({ kind: 'srt', port: 9001, latencyMs: 200 })
    expect(liveArgs(srt, 'srt', planOutput(srt, null, null), out, '0.0.0.0', 'ch').join(' ')).toContain('srt://0.0.0.0:9001?mode=listener&latency=200000')
    const udp = parseInput({ kind: 'udp', port: 5004 })
    expect(liveArgs(udp, 'udp', planOutput(udp, null, null), out, '0.0.0.0', 'ch').join(' ')).toContain('udp://0.0.0.0:5004?')
  })

  it('continues the media sequence after a respawn and marks the discontinuity', () => {
    expect(hlsArgs({ ...out, startNumber: 0 }).join(' ')).not.toContain('discont_start')
    const later = hlsArgs({ ...out, startNumber: 42 }).join(' ')
    expect(later).toContain('-start_number 42')
    expect(later).toContain('discont_start')
    expect(later).toContain('omit_endlist')
    expect(slateArgs('/slate.ts', out).join(' ')).toContain('-stream_loop -1 -i /slate.ts -map 0:v:0 -map 0:a:0 -c copy')
  })
})
