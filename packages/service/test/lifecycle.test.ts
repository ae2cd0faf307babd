import { describe, expect, it, onTestFinished } from 'vitest'
import { createLogger, onShutdown } from '@arus/service'

// A signal nothing else in the test worker listens to; process.emit calls the handlers without a real kill.
const SIGNAL = 'SIGUSR2' as const

function setup (): { log: ReturnType<typeof createLogger>, records: () => Array<Record<string, any>> } {
  const chunks: string[] = []
  const log = createLogger({ name: 'lifecycle', destination: { write: (s: string) => { chunks.push(s) } } })
  return { log, records: () => chunks.join('').split('\n').filter(Boolean).map((l) => JSON.parse(l)) }
}

function listenerCount (): number {
  return process.listenerCount(SIGNAL)
}

describe('onShutdown', () => {
  it('runs closers once, in order, then reports exit code 0', async () => {
    const { log, records } = setup()
    const order: string[] = []
    const exits: number[] = []
    const before = listenerCount()
    const shutdown = onShutdown(log, [
      async () => { order.push('http') },
      async () => { order.push('swarm') },
      async () => { order.push('store') }
    ], { signals: [SIGNAL], exit: (c) => exits.push(c) })
    expect(listenerCount()).toBe(before + 1)
    const a = shutdown('test')
    const b = shutdown('again')
    expect(b).toBe(a)
    expect(await a).toBe(0)
    expect(order).toEqual(['http', 'swarm', 'store'])
    expect(exits).toEqual([0])
    expect(listenerCount()).toBe(before)
    expect(records().map((r) => r.msg)).toEqual(['shutting down', 'shutdown complete'])
  })

  it('a signal triggers the shutdown; a second signal during it forces exit 1', async () => {
    const { log, records } = setup()
    const exits: number[] = []
    let release!: () => void
    const blocked = new Promise<void>((r) => { release = r })
    let started!: () => void
    const closing = new Promise<void>((r) => { started = r })
    const shutdown = onShutdown(log, [async () => { started(); await blocked }], { signals: [SIGNAL], exit: (c) => exits.push(c) })
    onTestFinished(() => { release() })
    process.emit(SIGNAL, SIGNAL)
    await closing
    process.emit(SIGNAL, SIGNAL)
    expect(exits).toEqual([1])
    release()
    expect(await shutdown()).toBe(0)
    expect(exits).toEqual([1]) // exit is called at most once
    expect(records().some((r) => r.msg === 'second signal during shutdown, forcing exit' && r.level === 40)).toBe(true)
    expect(records()[0]).toMatchObject({ msg: 'shutting down', reason: SIGNAL })
  })

  it('a failing closer is logged, the rest still run, and the code is 1', async () => {
    const { log, records } = setup()
    const order: string[] = []
    const shutdown = onShutdown(log, [
      async () => { order.push('a') },
      async () => { throw new Error('close failed') },
      async () => { order.push('c') }
    ], { signals: [SIGNAL], exit: false })
    expect(await shutdown()).toBe(1)
    expect(order).toEqual(['a', 'c'])
    expect(records().find((r) => r.msg === 'shutdown step failed')).toMatchObject({ level: 50, step: 1, err: { message: 'close failed' } })
  })

  it('a closer that hangs past timeoutMs gives code 1', async () => {
    const { log, records } = setup()
    let release!: () => void
    const never = new Promise<void>((r) => { release = r })
    onTestFinished(() => { release() })
    const exits: number[] = []
    const before = listenerCount()
    const shutdown = onShutdown(log, [() => never], { signals: [SIGNAL], timeoutMs: 50, exit: (c) => exits.push(c) })
    expect(await shutdown()).toBe(1)
    expect(exits).toEqual([1])
    expect(records().some((r) => r.msg === 'shutdown timed out')).toBe(true)
    expect(listenerCount()).toBe(before)
  })

  it('rejects invalid options', () => {
    const { log } = setup()
    expect(() => onShutdown(log, [], { timeoutMs: 0 })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
    expect(() => onShutdown(log, [], { signals: ['INT' as NodeJS.Signals] })).toThrow(expect.objectContaining({ code: 'SERVICE_INVALID_ARGUMENT' }))
  })
})
