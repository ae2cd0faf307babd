import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DisplayItem } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { startBroadcaster, type Broadcaster } from './helpers/broadcaster.js'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// Admin edits in a running panel reach a logged-in player as 'streams' events (spec 3 "Events":
// title, art, isLive, order, categories; no polling: the catalog watch is driven by appends).
const ctx = { onTestFinished: () => {} }
let stack: Stack
let bc: Broadcaster
// A 1×1 transparent PNG.
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg==', 'base64')

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  await api(stack, 'POST', '/api/streams', { id: 'one', title: 'One', order: 2, category: ['News'] })
  await api(stack, 'POST', '/api/streams', { id: 'two', title: 'Two', order: 1 })
  bc = await startBroadcaster(ctx, stack)
  await bc.channel('three', { title: 'Three' })
  for (const id of ['one', 'two', 'three']) await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
}, 90_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('live catalog push', () => {
  it('re-emits streams on edits of title, the parental flag, order, categories, art and isLive', async (t) => {
    const player = newPlayer(t, stack)
    const lists: DisplayItem[][] = []
    player.on('streams', (l) => lists.push(l))
    const first = await connectAndLogin(player, 'alice', 'alice-pw')
    expect(first.map((i) => i.id)).toEqual(['two', 'one', 'three'])
    const latest = () => lists.at(-1) ?? []
    const item = (id: string) => latest().find((i) => i.id === id)

    await api(stack, 'PATCH', '/api/streams/one', { title: 'One (renamed)' })
    await waitFor(() => item('one')?.title === 'One (renamed)', { timeoutMs: 15_000, message: 'title push' })

    expect(item('one')?.restricted).toBe(false)
    await api(stack, 'PATCH', '/api/streams/one', { restricted: true })
    await waitFor(() => item('one')?.restricted === true, { timeoutMs: 15_000, message: 'parental flag push' })

    await api(stack, 'PATCH', '/api/streams/one', { order: 0 })
    await waitFor(() => latest()[0]?.id === 'one', { timeoutMs: 15_000, message: 'order push' })

    await api(stack, 'PATCH', '/api/streams/two', { category: ['Sport', 'Live'] })
    await waitFor(() => item('two')?.category.join() === 'Sport,Live', { timeoutMs: 15_000, message: 'category push' })

    const art = await api<{ path: string }>(stack, 'POST', '/api/streams/two/art/logo', new Uint8Array(PNG))
    await waitFor(() => item('two')?.logo.endsWith(art.path), { timeoutMs: 15_000, message: 'art push' })
    const logo = item('two')?.logo ?? ''
    expect(logo).toBe(`http://127.0.0.1:${player.port}/${art.path}`)
    expect(logo).toBe(player.assetUrl(art.path))
    const res = await fetch(logo)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await res.arrayBuffer())).toEqual(PNG)

    expect(item('three')).toMatchObject({ isLive: true, status: 'live' })
    expect((await bc.api.post('/api/channels/three/stop')).status).toBe(200) // the broadcaster registers isLive false
    await waitFor(() => item('three')?.isLive === false, { timeoutMs: 15_000, message: 'isLive push' })
    expect(item('three')).toMatchObject({ status: 'idle' })

    await api(stack, 'PATCH', '/api/streams/one', { poster: 'https://img.example/one.jpg' })
    await waitFor(() => item('one')?.poster === 'https://img.example/one.jpg', { timeoutMs: 15_000, message: 'absolute art' })
    expect(player.listStreams()).toEqual(latest())
  })

  it('a deleted stream leaves the list; a new grant waits for the next login', async (t) => {
    await api(stack, 'POST', '/api/streams', { id: 'four', title: 'Four' })
    const player = newPlayer(t, stack)
    const lists: DisplayItem[][] = []
    player.on('streams', (l) => lists.push(l))
    await connectAndLogin(player, 'alice', 'alice-pw')
    await api(stack, 'POST', '/api/users/alice/grants', { streamId: 'four' })
    await api(stack, 'DELETE', '/api/streams/two')
    await waitFor(() => lists.at(-1)?.every((i) => i.id !== 'two'), { timeoutMs: 15_000, message: 'delete push' })
    expect(player.listStreams().map((i) => i.id)).not.toContain('four')
    const again = await player.login('alice', 'alice-pw')
    expect(again.map((i) => i.id)).toContain('four')
  })

  it('sessionLive turns false after logout-all (tokenVersion bump)', async (t) => {
    const player = newPlayer(t, stack)
    await connectAndLogin(player, 'alice', 'alice-pw')
    expect(await player.sessionLive()).toBe(true)
    await api(stack, 'POST', '/api/users/alice/logout-all')
    await waitFor(async () => !(await player.sessionLive()), { timeoutMs: 15_000, message: 'session ended' })
  })
})
