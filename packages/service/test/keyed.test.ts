import { describe, expect, it } from 'vitest'
import { keyedRecord, ownValue } from '@arus/service'

// Maps keyed by outside input (issue 39 item 9): a key of Object.prototype finds nothing
// unless the map holds it, and storing under one writes data, never a prototype.

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString', 'valueOf']

describe('ownValue', () => {
  it('reads own entries only', () => {
    const map: Record<string, number> = { a: 1 }
    expect(ownValue(map, 'a')).toBe(1)
    for (const k of PROTO_KEYS) expect(ownValue(map, k)).toBeUndefined()
  })
})

describe('keyedRecord', () => {
  it('copies own entries or pairs into a map without a prototype', () => {
    const map = keyedRecord({ a: 1, b: 2 })
    expect(Object.getPrototypeOf(map)).toBeNull()
    expect(Object.entries(map)).toEqual([['a', 1], ['b', 2]])
    expect(Object.entries(keyedRecord([['x', 1]]))).toEqual([['x', 1]])
    for (const k of PROTO_KEYS) expect(map[k]).toBeUndefined()
  })

  it('stores every key, __proto__ included, as plain data that JSON keeps', () => {
    const map = keyedRecord<{ n: number }>()
    for (const [i, k] of PROTO_KEYS.entries()) map[k] = { n: i }
    expect(Object.keys(map)).toEqual(PROTO_KEYS)
    expect(map.__proto__).toEqual({ n: 0 })
    expect(({} as Record<string, unknown>).n).toBeUndefined()
    expect(Object.keys(JSON.parse(JSON.stringify(map)) as object)).toEqual(PROTO_KEYS)
    expect(Object.keys({ ...map })).toEqual(PROTO_KEYS)
  })
})
