import { z } from 'zod'
import { generateSigningKeyPair, toHex } from '@arus/crypto'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import type { PublisherEntry } from '../registries.js'

/** Publisher enrollment (spec 1 "Publisher enrollment", register rules 1-2). Registry-only: safe beside a running panel. */

const NAME = /^[A-Za-z0-9_.-]{1,64}$/
const GLOB = /^[A-Za-z0-9_.*?-]{1,128}$/

export interface PublisherView { name: string; publicKey: string; scopes: string[]; status: 'active' | 'revoked'; createdAt: number }

type RegistryCtx = Pick<PanelCore, 'registries' | 'log' | 'activity'>

export function parsePublisherName (name: string): string {
  if (!NAME.test(name)) throw PanelError.invalid(`invalid publisher name "${String(name).slice(0, 64)}": 1-64 letters, digits, _ . -`)
  return name
}

export function parseScopes (scopes: string[]): string[] {
  for (const s of scopes) if (!GLOB.test(s)) throw PanelError.invalid(`invalid scope glob "${String(s).slice(0, 128)}": letters, digits, _ . - and the wildcards * ?`)
  return [...new Set(scopes)]
}

/** Stream-id glob: `*` any run of characters, `?` one character; everything else literal. */
export function scopeMatches (scopes: string[], streamId: string): boolean {
  return scopes.some((glob) => {
    const re = new RegExp('^' + glob.replace(/[.+^${}()|[\]\\-]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.') + '$')
    return re.test(streamId)
  })
}

const view = (name: string, p: PublisherEntry): PublisherView => ({ name, ...p })

/** Enrolls a site; the secret key is returned once and never stored by the panel. */
export async function addPublisher (ctx: RegistryCtx, input: { name: string; scopes?: string[] }): Promise<PublisherView & { secretKey: string }> {
  const name = parsePublisherName(input.name)
  const scopes = parseScopes(input.scopes ?? ['*'])
  const kp = generateSigningKeyPair()
  const entry: PublisherEntry = { publicKey: toHex(kp.publicKey), scopes, status: 'active', createdAt: Date.now() }
  await ctx.registries.publishers.update((map) => {
    if (Object.hasOwn(map, name)) throw PanelError.exists(`publisher "${name}"`)
    map[name] = entry
  })
  ctx.activity.record({ event: 'publisher.added', publisher: name, scopes }, 'publisher enrolled')
  return { ...view(name, entry), secretKey: toHex(kp.secretKey) }
}

export async function listPublishers (ctx: RegistryCtx): Promise<PublisherView[]> {
  const map = await ctx.registries.publishers.all()
  return Object.keys(map).sort().map((name) => view(name, map[name]!))
}

async function edit (ctx: RegistryCtx, name: string, fn: (p: PublisherEntry) => void): Promise<PublisherView> {
  return ctx.registries.publishers.update((map) => {
    const p = Object.hasOwn(map, name) ? map[name] : undefined
    if (!p) throw PanelError.notFound(`publisher "${name}"`)
    fn(p)
    return view(name, p)
  })
}

/** Removes an enrollment after an automatic config snapshot (its site can no longer register). */
export async function removePublisher (ctx: RegistryCtx & { snapshots: { beforeDestructive(what: string): Promise<unknown> } }, name: string): Promise<void> {
  if ((await ctx.registries.publishers.get(name)) === null) throw PanelError.notFound(`publisher "${name}"`)
  await ctx.snapshots.beforeDestructive(`remove publisher ${name}`)
  await ctx.registries.publishers.update((map) => {
    if (!Object.hasOwn(map, name)) throw PanelError.notFound(`publisher "${name}"`)
    delete map[name]
  })
  ctx.activity.record({ event: 'publisher.removed', publisher: name }, 'publisher removed')
}

export async function setPublisherScopes (ctx: RegistryCtx, name: string, scopes: string[]): Promise<PublisherView> {
  const parsed = parseScopes(scopes)
  const out = await edit(ctx, name, (p) => { p.scopes = parsed })
  ctx.activity.record({ event: 'publisher.scopes', publisher: name, scopes: parsed }, 'publisher scopes set')
  return out
}

export async function setPublisherStatus (ctx: RegistryCtx, name: string, status: string): Promise<PublisherView> {
  if (status !== 'active' && status !== 'revoked') throw PanelError.invalid('status must be active or revoked')
  const out = await edit(ctx, name, (p) => { p.status = status })
  ctx.activity.record({ event: 'publisher.status', publisher: name, status }, 'publisher status changed')
  return out
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

const Scopes = z.array(z.string().min(1).max(128)).max(256)
export const PublisherView = z.object({
  name: z.string(),
  publicKey: z.string(),
  scopes: z.array(z.string()),
  status: z.enum(['active', 'revoked']),
  createdAt: z.number()
})
export const PublisherList = z.object({ publishers: z.array(PublisherView) })
export const EnrollBody = z.strictObject({ name: z.string().min(1).max(64), scopes: Scopes.optional().describe("Stream-id globs (default ['*'])") })
export const EnrollReply = PublisherView.extend({ secretKey: z.string().describe("The site's PUBLISHER_KEY, returned this once") })
export const PublisherStatusBody = z.strictObject({ status: z.enum(['active', 'revoked']) })
export const ScopesBody = z.strictObject({ scopes: Scopes })
