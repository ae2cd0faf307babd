import type { RouteTables } from '../routes.js'
import { routeTool, type RouteToolSpec, type ToolDef } from '../tool.js'

/** The broadcaster's tools (spec 2 "Tool groups": broadcaster). With its control API disabled, every one reports the API unreachable. */
export function broadcasterTools (t: RouteTables): ToolDef[] {
  const r = (s: Omit<RouteToolSpec, 'service'>) => routeTool(t, { ...s, service: 'broadcaster' })
  return [
    r({ name: 'broadcaster_health', route: 'GET /healthz', klass: 'R', title: 'Broadcaster health' }),
    r({ name: 'broadcaster_status', route: 'GET /api/status', klass: 'R', title: 'Broadcaster status' }),
    r({ name: 'broadcaster_capabilities', route: 'GET /api/capabilities', klass: 'R', title: 'ffmpeg capabilities and input kinds' }),
    r({ name: 'broadcaster_list_channels', route: 'GET /api/channels', klass: 'R', title: 'List channels' }),
    r({ name: 'broadcaster_get_channel', route: 'GET /api/channels/:id', klass: 'R', title: 'Get a channel' }),
    r({ name: 'broadcaster_channel_logs', route: 'GET /api/channels/:id/logs', klass: 'R', title: 'A channel\'s log lines' }),
    r({ name: 'broadcaster_incidents', route: 'GET /api/incidents', klass: 'R', title: 'Incidents (respawn bursts, outages, slate)' }),
    r({ name: 'broadcaster_analytics', route: 'GET /api/analytics', klass: 'R', title: 'Channel analytics' }),
    r({ name: 'broadcaster_list_admins', route: 'GET /api/admins', klass: 'R', title: 'List control admins' }),
    r({ name: 'broadcaster_add_channel', route: 'POST /api/channels', klass: 'W', title: 'Add a channel' }),
    r({ name: 'broadcaster_update_channel', route: 'PATCH /api/channels/:id', klass: 'W', title: 'Change a channel (applied at its next start)', idempotent: true }),
    r({ name: 'broadcaster_start_channel', route: 'POST /api/channels/:id/start', klass: 'W', title: 'Start a channel', idempotent: true }),
    r({ name: 'broadcaster_add_admin', route: 'POST /api/admins', klass: 'W', title: 'Add a control admin' }),
    r({ name: 'broadcaster_set_admin_password', route: 'POST /api/admins/:name/password', klass: 'W', title: 'Set a control admin\'s password (if it is the tool server\'s own, update the config afterwards)', idempotent: true }),
    r({ name: 'broadcaster_stop_channel', route: 'POST /api/channels/:id/stop', klass: 'D', title: 'Stop a channel (viewers lose it until it starts again)' }),
    r({ name: 'broadcaster_rotate_channel', route: 'POST /api/channels/:id/rotate', klass: 'D', title: 'Rotate a channel to a fresh feed generation' }),
    r({ name: 'broadcaster_remove_channel', route: 'DELETE /api/channels/:id', klass: 'D', title: 'Remove a stopped channel' }),
    r({ name: 'broadcaster_remove_admin', route: 'DELETE /api/admins/:name', klass: 'D', title: 'Remove a control admin' })
  ]
}
