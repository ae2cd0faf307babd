import type { RouteTables } from '../routes.js'
import { routeTool, type RouteToolSpec, type ToolDef } from '../tool.js'

/** The library's tools (spec 2 "Tool groups": library, optional). */
export function libraryTools (t: RouteTables): ToolDef[] {
  const r = (s: Omit<RouteToolSpec, 'service'>) => routeTool(t, { ...s, service: 'library' })
  return [
    r({ name: 'library_status', route: 'GET /api/status', klass: 'R', title: 'Library status' }),
    r({ name: 'library_list_titles', route: 'GET /api/titles', klass: 'R', title: 'List titles' }),
    r({ name: 'library_get_title', route: 'GET /api/titles/:id', klass: 'R', title: 'Get a title' }),
    r({ name: 'library_title_logs', route: 'GET /api/titles/:id/logs', klass: 'R', title: 'A title\'s ingest log' }),
    r({ name: 'library_add_title', route: 'POST /api/titles', klass: 'W', title: 'Add a title and queue its ingest' }),
    r({ name: 'library_set_title', route: 'PATCH /api/titles/:id', klass: 'W', title: 'Change a title\'s input, mode or hlsTime', idempotent: true }),
    r({ name: 'library_reingest_title', route: 'POST /api/titles/:id/ingest', klass: 'D', title: 'Re-ingest a title into a new feed generation' }),
    r({ name: 'library_delete_title', route: 'DELETE /api/titles/:id', klass: 'D', title: 'Delete a title: its feed is purged and the panel record is only marked unavailable (edit or delete it in the panel)' })
  ]
}
