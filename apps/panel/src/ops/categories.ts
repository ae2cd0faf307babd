import { z } from 'zod'
import { CatMetaRecord, keys, railOf, slugify } from '@arus/catalog'
import type { PanelCore } from '../context.js'
import { PanelError } from '../errors.js'
import { setMeta } from './stream-meta.js'
import { listStreams } from './streams.js'
import { Label, Order } from './ids.js'

/**
 * Category presentation (spec 1 "Other replicated and private data": catmeta records hold
 * rename, merge, order and hide data for rails; membership stays on the catalog records).
 * A category is identified by its slug (`slugify(label)`); records list labels. Rails
 * re-label and re-order live because viewers watch `catmeta/` as they watch `catalog/`.
 */

/** A category as the admin API shows it: what the records say plus its presentation record. */
export interface CategoryView {
  slug: string
  /** Shown label: the rename if set, else the first spelling found on a record, else the slug. */
  label: string
  /** Spellings used on records that map to this slug. */
  names: string[]
  /** Records listing it. */
  streams: number
  /** Rename label, or null. */
  renamed: string | null
  /** Slug this category's channels are shown under, or null. */
  mergedInto: string | null
  /** Slug of the rail the channels finally appear on (merges followed). */
  rail: string
  order: number | null
  hidden: boolean
  /** True when a presentation record exists. */
  configured: boolean
}

/** Changes to one category: a value sets the field, null clears it. */
export interface CategoryPatch {
  label?: string | null
  mergedInto?: string | null
  order?: number | null
  hidden?: boolean
}

type Meta = CatMetaRecord

function slugOf (nameOrSlug: string): string {
  if (typeof nameOrSlug !== 'string' || nameOrSlug.trim() === '' || nameOrSlug.length > 200) throw PanelError.invalid('category must be a non-empty label or slug')
  return slugify(nameOrSlug)
}

function apply (current: Meta | null, slug: string, patch: CategoryPatch): Meta {
  const next: Record<string, unknown> = { ...(current ?? { v: 1, slug }) }
  const set = (field: keyof CategoryPatch, value: unknown) => {
    if (value === undefined) return
    if (value === null || (field === 'hidden' && value === false)) delete next[field]
    else next[field] = value
  }
  set('label', patch.label)
  set('mergedInto', patch.mergedInto === undefined || patch.mergedInto === null ? patch.mergedInto : slugOf(patch.mergedInto))
  set('order', patch.order)
  set('hidden', patch.hidden)
  return next as Meta
}

function check (record: Meta, metas: Map<string, Meta>): void {
  const parsed = CatMetaRecord.safeParse(record)
  if (!parsed.success) throw PanelError.invalid(`invalid category ${record.slug}: ${parsed.error.issues.map((i) => `${i.path.join('.') || 'record'}: ${i.message}`).join('; ')}`)
  if (record.mergedInto !== undefined && railOf(record.slug, new Map(metas).set(record.slug, record)) === null) {
    throw PanelError.invalid(`merging ${record.slug} into ${record.mergedInto} would make a loop`)
  }
}

/** Meta records stay minimal: a record with nothing left to say is deleted (the bee keeps no empty rows). */
const isEmpty = (m: Meta) => m.label === undefined && m.mergedInto === undefined && m.order === undefined && m.hidden !== true

export async function listCategories (ctx: PanelCore): Promise<CategoryView[]> {
  const metas = new Map((await ctx.catalog.listCatMeta()).map((m) => [m.slug, m]))
  const seen = new Map<string, { names: Set<string>; streams: number }>()
  for (const s of await listStreams(ctx)) {
    for (const name of new Set(s.category)) {
      const slug = slugify(name)
      const e = seen.get(slug) ?? { names: new Set<string>(), streams: 0 }
      e.names.add(name)
      e.streams++
      seen.set(slug, e)
    }
  }
  const slugs = new Set([...seen.keys(), ...metas.keys()])
  const views = [...slugs].map((slug): CategoryView => {
    const m = metas.get(slug)
    const names = [...(seen.get(slug)?.names ?? [])].sort()
    return {
      slug,
      label: m?.label ?? names[0] ?? slug,
      names,
      streams: seen.get(slug)?.streams ?? 0,
      renamed: m?.label ?? null,
      mergedInto: m?.mergedInto ?? null,
      rail: railOf(slug, metas) ?? slug,
      order: m?.order ?? null,
      hidden: m?.hidden === true,
      configured: m !== undefined
    }
  })
  return views.sort((a, b) => (a.order ?? 10_000) - (b.order ?? 10_000) || a.label.localeCompare(b.label) || a.slug.localeCompare(b.slug))
}

async function view (ctx: PanelCore, slug: string): Promise<CategoryView> {
  const found = (await listCategories(ctx)).find((c) => c.slug === slug)
  if (!found) throw PanelError.notFound(`category "${slug}"`)
  return found
}

/** Creates the presentation record of a category (it may have no channels yet). */
export async function createCategory (ctx: PanelCore, input: { name: string } & CategoryPatch): Promise<CategoryView> {
  const slug = slugOf(input.name)
  const metas = new Map((await ctx.catalog.listCatMeta()).map((m) => [m.slug, m]))
  if (metas.has(slug)) throw PanelError.exists(`category "${slug}"`)
  const { name, ...patch } = input
  // Keep the typed spelling as the label when it differs from the slug, so the rail shows it.
  const record = apply(null, slug, { ...patch, label: patch.label ?? (name.trim() !== slug ? name.trim() : null) })
  check(record, metas)
  await ctx.catalog.putCatMeta(record)
  ctx.activity.record({ event: 'category.created', slug }, 'category created')
  return view(ctx, slug)
}

/** Renames, merges, orders or hides one category (upsert of its presentation record). */
export async function editCategory (ctx: PanelCore, nameOrSlug: string, patch: CategoryPatch): Promise<CategoryView> {
  const slug = slugOf(nameOrSlug)
  const metas = new Map((await ctx.catalog.listCatMeta()).map((m) => [m.slug, m]))
  const record = apply(metas.get(slug) ?? null, slug, patch)
  check(record, metas)
  if (isEmpty(record)) await ctx.catalog.deleteCatMeta(slug)
  else await ctx.catalog.putCatMeta(record)
  ctx.activity.record({ event: 'category.updated', slug, fields: Object.keys(patch).sort() }, 'category updated')
  return view(ctx, slug)
}

/** Sets rail order 0..n-1 along `slugs` in one atomic write; categories not listed keep theirs. */
export async function orderCategories (ctx: PanelCore, slugs: string[]): Promise<CategoryView[]> {
  const list = slugs.map(slugOf)
  if (new Set(list).size !== list.length) throw PanelError.invalid('order lists a category twice')
  if (list.length > 10_000) throw PanelError.invalid('order lists more than 10000 categories')
  await ctx.catalog.batch(async (b) => {
    for (const [i, slug] of list.entries()) {
      await b.update(keys.catMeta(slug), (cur) => ({ ...(cur ?? { v: 1 as const, slug }), order: i }))
    }
  })
  ctx.activity.record({ event: 'category.ordered', count: list.length }, 'categories ordered')
  return listCategories(ctx)
}

/**
 * Deletes a category's presentation record (it returns to its defaults). With `strip`, also
 * removes the category from every record that lists it — the only operation here that edits
 * membership, through the same setMeta as any other metadata change.
 */
export async function deleteCategory (ctx: PanelCore, nameOrSlug: string, opts: { strip?: boolean } = {}): Promise<{ deleted: string; stripped: number }> {
  const slug = slugOf(nameOrSlug)
  const had = (await ctx.catalog.getCatMeta(slug)) !== null
  const members = (await listStreams(ctx)).filter((s) => s.category.some((c) => slugify(c) === slug))
  if (!had && (members.length === 0 || opts.strip !== true)) throw PanelError.notFound(`category "${slug}"`)
  if (had) await ctx.catalog.deleteCatMeta(slug)
  let stripped = 0
  if (opts.strip === true) {
    for (const s of members) {
      await setMeta(ctx, s.id, { category: s.category.filter((c) => slugify(c) !== slug) })
      stripped++
    }
  }
  ctx.activity.record({ event: 'category.deleted', slug, count: stripped }, 'category deleted')
  return { deleted: slug, stripped }
}

// --- schemas of these operations: the HTTP routes' request and reply, the CLI, the docs ---

export const CategoryView = z.object({
  slug: z.string(),
  label: z.string(),
  names: z.array(z.string()),
  streams: z.number(),
  renamed: z.string().nullable(),
  mergedInto: z.string().nullable(),
  rail: z.string(),
  order: z.number().nullable(),
  hidden: z.boolean(),
  configured: z.boolean()
})
export const CategoryList = z.object({ categories: z.array(CategoryView) })
const CategoryFields = {
  label: Label.nullable().optional().describe('Rename: the label rails show; null clears'),
  mergedInto: z.string().min(1).max(200).nullable().optional().describe('Show these channels under another category; null clears'),
  order: Order.optional(),
  hidden: z.boolean().optional().describe('Hide the rail')
}
export const CreateCategoryBody = z.strictObject({ name: z.string().min(1).max(200), ...CategoryFields })
export const PatchCategoryBody = z.strictObject(CategoryFields).refine((p) => Object.values(p).some((v) => v !== undefined), 'give at least one field')
export const OrderCategoriesBody = z.strictObject({ order: z.array(z.string().min(1).max(200)).min(1).max(10_000).describe('Slugs in rail order; they get order 0..n-1') })
export const DeleteCategoryReply = z.object({ deleted: z.string(), stripped: z.number() })
