import type { UserRecord } from '@arus/catalog'
import type { PanelCore } from '../context.js'

/** Every user record, page by page (a leaf: imports no other op). */
export async function * allUsers (ctx: PanelCore): AsyncGenerator<{ username: string; record: UserRecord }> {
  let after: string | undefined
  for (let pages = 0; pages < 1_000_000; pages++) {
    const page = await ctx.catalog.listUsers({ after, limit: 500 })
    yield * page.users
    if (!page.next) return
    after = page.next
  }
}
