import type { FastifyInstance } from '@arus/service'
import type { PanelContext } from '../context.js'
import {
  CategoryList, CategoryView, createCategory, CreateCategoryBody, deleteCategory, DeleteCategoryReply, editCategory, listCategories,
  orderCategories, OrderCategoriesBody, PatchCategoryBody
} from '../ops/categories.js'
import { panelRoute } from './panel-route.js'
import { CategoryParams, DeleteCategoryQuery } from './schemas.js'

/** Categories: rename, merge, order, hide and delete over catmeta records (docs/panel-api.md "Categories"). */
export function categoryRoutes (app: FastifyInstance, ctx: PanelContext): void {
  const tag = 'categories'
  panelRoute(app, { method: 'GET', url: '/api/categories', tag, summary: 'Categories found on records and their presentation (rename, merge, order, hide)', response: CategoryList },
    async () => ({ categories: await listCategories(ctx) }))
  panelRoute(app, { method: 'POST', url: '/api/categories', tag, summary: 'Create a presentation record for a category', body: CreateCategoryBody, response: CategoryView, status: 201 },
    async ({ body }) => createCategory(ctx, body))
  panelRoute(app, { method: 'PATCH', url: '/api/categories', tag, summary: 'Order rails: the listed slugs get order 0..n-1 in one write', body: OrderCategoriesBody, response: CategoryList },
    async ({ body }) => ({ categories: await orderCategories(ctx, body.order) }))
  panelRoute(app, { method: 'PATCH', url: '/api/categories/:slug', tag, summary: 'Rename (label), merge (mergedInto), order or hide one category; null clears a field', params: CategoryParams, body: PatchCategoryBody, response: CategoryView },
    async ({ params, body }) => editCategory(ctx, params.slug, body))
  panelRoute(app, { method: 'DELETE', url: '/api/categories/:slug', tag, summary: 'Drop the presentation record; ?strip=true also removes the category from every record', params: CategoryParams, query: DeleteCategoryQuery, response: DeleteCategoryReply },
    async ({ params, query }) => deleteCategory(ctx, params.slug, { strip: query.strip === 'true' || query.strip === '1' }))
}
