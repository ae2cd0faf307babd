import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DisplayItem } from '@arus/sdk'
import { cleanupAll, waitFor } from '@arus/testkit'
import { api, connectAndLogin, createStack, newPlayer, panel, runPanel, type Stack } from './helpers/stack.js'

// Category presentation reaches the app (issue 13 item 4): a logged-in player follows a
// rename, a merge, a hide and a reorder live, without a re-login — in the display items'
// labels and in categories(), the ordered visible rails — and each edit re-emits 'streams'.
const ctx = { onTestFinished: () => {} }
let stack: Stack

beforeAll(async () => {
  stack = await createStack(ctx)
  await panel(stack, ['create-user', 'alice'], 'alice-pw\n')
  await runPanel(ctx, stack)
  for (const [id, category] of [['a', ['News']], ['b', ['Sport']], ['c', ['Football']], ['d', ['Kids', 'News']]] as const) {
    await api(stack, 'POST', '/api/streams', { id, category })
    await api(stack, 'POST', '/api/users/alice/grants', { streamId: id })
  }
}, 60_000)

afterAll(async () => { await cleanupAll() }, 60_000)

describe('category presentation in the SDK', () => {
  it('follows rename, merge, hide and reorder live', async (t) => {
    const player = newPlayer(t, stack)
    let emitted = 0
    player.on('streams', () => { emitted++ })
    await connectAndLogin(player, 'alice', 'alice-pw')
    const item = (id: string) => player.listStreams().find((i: DisplayItem) => i.id === id)
    const rails = () => player.categories().map((r) => r.label)
    expect(rails()).toEqual(['Football', 'Kids', 'News', 'Sport'])
    expect(item('d')?.category).toEqual(['Kids', 'News'])

    let seen = emitted
    await api(stack, 'PATCH', '/api/categories/news', { label: 'Headlines' })
    await waitFor(() => item('a')?.category[0] === 'Headlines', { timeoutMs: 15_000, message: 'rename' })
    expect(item('d')?.category).toEqual(['Kids', 'Headlines'])
    expect(emitted).toBeGreaterThan(seen)

    await api(stack, 'PATCH', '/api/categories/football', { mergedInto: 'sport' })
    await waitFor(() => item('c')?.category[0] === 'Sport', { timeoutMs: 15_000, message: 'merge' })
    expect(rails()).toEqual(['Headlines', 'Kids', 'Sport'])

    await api(stack, 'PATCH', '/api/categories/kids', { hidden: true })
    await waitFor(() => !rails().includes('Kids'), { timeoutMs: 15_000, message: 'hide' })
    expect(item('d')?.category).toEqual(['Headlines'])

    // A reorder changes no item, yet re-emits 'streams' and reorders the rails.
    seen = emitted
    await api(stack, 'PATCH', '/api/categories', { order: ['sport', 'news'] })
    await waitFor(() => rails()[0] === 'Sport', { timeoutMs: 15_000, message: 'reorder' })
    expect(rails()).toEqual(['Sport', 'Headlines'])
    expect(player.categories()[0]).toEqual({ slug: 'sport', label: 'Sport', order: 0 })
    expect(emitted).toBeGreaterThan(seen)
  })
})
