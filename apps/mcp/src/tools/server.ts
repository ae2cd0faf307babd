import { execFile, spawn } from 'node:child_process'
import { promisify } from 'node:util'
import { fileURLToPath } from 'node:url'
import { z } from 'zod'
import type { McpConfig } from '../config.js'
import { script, shq, sshExec, type SshResult } from '../ssh.js'
import { sshArgs, type SshTarget } from '../tunnel.js'
import { ToolFailure, type ToolDef } from '../tool.js'

/**
 * The server tools (spec 2 "server (SSH)", "repeater"): they run the deploy pack's commands on
 * the box over SSH (docs/deploy.md) — status, logs, disk, backups, install, set-env (docker/
 * set-env.sh: allowlisted knobs, a config check, a recreate, a revert on failure), restart,
 * restore (docker/restore.sh's refusals), sysctl, update with a dry run. All but server_install
 * take `host`, a box named in ssh.hosts.
 */

const REPO = fileURLToPath(new URL('../../../../', import.meta.url))
const SERVICE = z.enum(['panel', 'broadcaster', 'library', 'reseller'])
const host = { host: z.string().regex(/^[A-Za-z0-9_.-]{1,64}$/).optional().describe('A box named in the config\'s ssh.hosts (default: the ssh block\'s host)') }
const ARCHIVE = z.string().regex(/^arus-(panel|broadcaster|library|reseller)-\d{8}T\d{6}Z\.tar\.gz$/, 'an archive name from server_list_backups')
/** Env keys server_set_env never writes (spec 2): secrets and wiring, and what Compose sets. */
export const FORBIDDEN_ENV = ['PUBLISHER_KEY', 'PANEL_PUBKEY', 'WEBHOOK_SECRET', 'REPORTS_MSGR_BOT_TOKEN', 'REPORTS_WEBHOOK_URL', 'PANEL_ADMIN_PASS', 'DATA_DIR', 'BACKUP_DIR', 'ADMIN_ENABLED', 'CONTROL_ENABLED']

interface Box { target: SshTarget; repo: string; project: string; backupDir: string; env: string }

function boxOf (c: McpConfig, name: unknown): Box {
  const ssh = c.ssh
  if (!ssh) throw new ToolFailure('no ssh block in the config: the server tools need one')
  if (!c.install) throw new ToolFailure('no install block in the config (repoDir on the box)')
  let target: SshTarget = { host: ssh.host, user: ssh.user, port: ssh.port, keyPath: ssh.keyPath, knownHosts: ssh.knownHosts }
  if (typeof name === 'string') {
    const h = ssh.hosts?.[name]
    if (!h) throw new ToolFailure(`no box named ${name} in ssh.hosts (known: ${Object.keys(ssh.hosts ?? {}).join(', ') || 'none'})`)
    target = { ...target, host: h.host, ...(h.user ? { user: h.user } : {}), ...(h.port ? { port: h.port } : {}), ...(h.keyPath ? { keyPath: h.keyPath } : {}) }
  }
  const i = c.install
  const env = [`COMPOSE_PROJECT_NAME=${i.project}`, `ARUS_ENV_DIR=${i.repoDir}/docker/env`, `ARUS_BACKUP_DIR=${i.backupDir}`,
    ...(i.images?.runtime ? [`ARUS_IMAGE=${i.images.runtime}`] : []), ...(i.images?.media ? [`ARUS_MEDIA_IMAGE=${i.images.media}`] : []), ...(i.base ? [`BASE=${i.base}`] : [])]
  return { target, repo: i.repoDir, project: i.project, backupDir: i.backupDir, env: env.map((e) => `export ${e.split('=')[0]}=${shq(e.slice(e.indexOf('=') + 1))};`).join(' ') }
}

/** Runs `body` in the repo dir on the box with the stack's environment and compose files set. */
async function inRepo (box: Box, body: string, args: string[] = [], timeoutMs = 300_000): Promise<SshResult> {
  const prelude = `cd ${shq(box.repo)} || exit 90; ${box.env} FILES="-f docker/compose.yaml"; [ -f "$ARUS_ENV_DIR/library.env" ] && FILES="$FILES -f docker/compose.library.yaml"; [ -f "$ARUS_ENV_DIR/reseller.env" ] && FILES="$FILES -f docker/compose.reseller.yaml"; [ -f "$ARUS_ENV_DIR/repeater.env" ] && FILES="$FILES -f docker/compose.repeater.yaml"; `
  const r = await sshExec(box.target, script(prelude + body, ...args), { timeoutMs })
  if (r.code === 255) throw new ToolFailure(`ssh to ${box.target.host} failed: ${r.stderr.trim().split('\n').pop() ?? ''}`, 'MCP_SSH')
  if (r.code === 90) throw new ToolFailure(`no deploy pack at ${box.repo} on ${box.target.host}: call server_install first`, 'MCP_NOT_INSTALLED')
  return r
}

const must = (r: SshResult, what: string): string => {
  if (r.code !== 0) throw new ToolFailure(`${what} failed (exit ${r.code}): ${r.stderr.trim().split('\n').slice(-3).join(' ')}`)
  return r.stdout
}

function tool (name: string, klass: 'R' | 'W' | 'D', title: string, description: string, input: z.ZodObject, run: ToolDef['run'], extra: Partial<ToolDef> = {}): ToolDef {
  return { name, group: 'server', klass, title, description, input, run, ...extra }
}

export function serverTools (): ToolDef[] {
  return [
    tool('server_preflight', 'R', 'Check a box for Arus', 'Docker, Compose, disk, UDP buffer sysctls and the deploy pack on the box', z.strictObject(host), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const r = await sshExec(box.target, script('echo "docker=$(docker version --format "{{.Server.Version}}" 2>/dev/null)"; echo "compose=$(docker-compose version --short 2>/dev/null)"; echo "diskFree=$(df -P -B1 / | awk "NR==2 {print \\$4}")"; echo "rmemMax=$(sysctl -n net.core.rmem_max)"; echo "wmemMax=$(sysctl -n net.core.wmem_max)"; [ -f "$1/docker/compose.yaml" ] && echo installed=yes || echo installed=no', box.repo))
      if (r.code === 255) throw new ToolFailure(`ssh to ${box.target.host} failed: ${r.stderr.trim().split('\n').pop() ?? ''}`)
      const kv = Object.fromEntries(r.stdout.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
      const problems = [
        ...(kv.docker ? [] : ['no Docker engine answers']),
        ...(kv.compose ? [] : ['docker-compose is missing']),
        ...(Number(kv.rmemMax) >= 8_388_608 ? [] : ['UDP buffers capped: call server_sysctl']),
        ...(Number(kv.diskFree) > 5e9 ? [] : ['less than 5 GB free on /'])
      ]
      return { data: { host: box.target.host, docker: kv.docker || null, compose: kv.compose || null, diskFreeBytes: Number(kv.diskFree), rmemMax: Number(kv.rmemMax), wmemMax: Number(kv.wmemMax), installed: kv.installed === 'yes', ok: problems.length === 0, problems } }
    }, { output: z.object({ host: z.string(), docker: z.string().nullable(), compose: z.string().nullable(), diskFreeBytes: z.number(), rmemMax: z.number(), wmemMax: z.number(), installed: z.boolean(), ok: z.boolean(), problems: z.array(z.string()) }) }),

    tool('server_status', 'R', 'The stack\'s containers', 'Each container of the Compose project: service, state, health', z.strictObject(host), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'docker ps -a --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" --format "{{.Label \\"com.docker.compose.service\\"}}\\t{{.State}}\\t{{.Status}}"'), 'docker ps')
      const containers = out.trim().split('\n').filter(Boolean).map((l) => { const [service = '', state = '', status = ''] = l.split('\t'); return { service, state, status, healthy: /\(healthy\)/.test(status) } })
      return { data: { project: box.project, containers } }
    }, { output: z.object({ project: z.string(), containers: z.array(z.object({ service: z.string(), state: z.string(), status: z.string(), healthy: z.boolean() })) }) }),

    tool('server_logs', 'R', 'A daemon\'s log lines', 'The last lines of a service\'s container log (at most 400)', z.strictObject({ ...host, service: SERVICE, lines: z.number().int().min(1).max(400).default(100) }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'docker-compose $FILES logs --no-color --tail "$1" "$2" 2>&1', [String(a.lines), a.service as string]), 'docker-compose logs')
      return { data: { service: a.service, lines: out.split('\n').filter(Boolean).slice(-(a.lines as number)) } }
    }, { output: z.object({ service: z.string(), lines: z.array(z.string()) }) }),

    tool('server_disk', 'R', 'Disk use on the box', 'Free space of /, Docker\'s data and the backup folder, and Docker\'s own use', z.strictObject(host), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'for d in / "$(docker info -f "{{.DockerRootDir}}" 2>/dev/null || echo /var/lib/docker)" "$ARUS_BACKUP_DIR"; do [ -d "$d" ] && df -P -B1 "$d" | awk -v d="$d" "NR==2 {print d\\"\\t\\"\\$2\\"\\t\\"\\$4}"; done'), 'df')
      const filesystems = out.trim().split('\n').filter(Boolean).map((l) => { const [path = '', total = '0', free = '0'] = l.split('\t'); return { path, totalBytes: Number(total), freeBytes: Number(free) } })
      return { data: { filesystems } }
    }, { output: z.object({ filesystems: z.array(z.object({ path: z.string(), totalBytes: z.number(), freeBytes: z.number() })) }) }),

    tool('server_list_backups', 'R', 'Backup archives on the box', 'The archives in the backup folder, newest first, with size and age', z.strictObject(host), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'ls -1 "$ARUS_BACKUP_DIR" 2>/dev/null | grep -E "^arus-[a-z]+-[0-9]{8}T[0-9]{6}Z\\.tar\\.gz$" | while read -r f; do printf "%s\\t%s\\t%s\\n" "$f" "$(stat -c %s "$ARUS_BACKUP_DIR/$f")" "$(stat -c %Y "$ARUS_BACKUP_DIR/$f")"; done'), 'ls')
      const now = Date.now() / 1000
      const archives = out.trim().split('\n').filter(Boolean).map((l) => { const [name = '', size = '0', mtime = '0'] = l.split('\t'); return { name, service: name.split('-')[1] ?? '', bytes: Number(size), ageHours: Math.round((now - Number(mtime)) / 360) / 10 } }).sort((x, y) => x.ageHours - y.ageHours)
      return { data: { dir: box.backupDir, archives } }
    }, { output: z.object({ dir: z.string(), archives: z.array(z.object({ name: z.string(), service: z.string(), bytes: z.number(), ageHours: z.number() })) }) }),

    tool('server_backup', 'W', 'Back up the daemons\' volumes', 'docker/backup.sh on the box: each service stopped for an exact copy and started again (a few seconds each); archives into the backup folder', z.strictObject({ ...host, services: z.array(SERVICE).max(4).optional() }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'docker/backup.sh --project "$COMPOSE_PROJECT_NAME" --dir "$ARUS_BACKUP_DIR" "$@"', (a.services as string[] | undefined) ?? [], 600_000), 'backup')
      return { data: { archives: out.trim().split('\n').filter(Boolean).map((p) => p.split('/').pop()) } }
    }),

    tool('server_install', 'W', 'Install or update the deploy pack on the box and bring the site up', 'Copies this repository (without node_modules, dist, .git or env files) to install.repoDir on the ssh box, builds the images, runs docker/site-init.sh (minted keys and passwords stay on the box) and starts the stack', z.strictObject({
      library: z.boolean().default(false),
      reseller: z.boolean().default(false),
      repeater: z.boolean().default(false).describe('add a repeater to the stack (compose.repeater.yaml): site-init lists its key in the broadcaster\'s ORIGIN_RELAY_KEYS'),
      build: z.boolean().default(true).describe('false: use the images already on the box (install.images) instead of building them')
    }), async (ctx, a) => {
      const box = boxOf(ctx.config, undefined)
      await copyRepo(box)
      const overlays = (['library', 'reseller', 'repeater'] as const).filter((o) => a[o] === true)
      const flags = overlays.map((o) => `--${o}`)
      const files = ['-f docker/compose.yaml', ...overlays.map((o) => `-f docker/compose.${o}.yaml`)].join(' ')
      // BASE (install.base) reaches the Dockerfile through the compose files' build args.
      if (a.build !== false) must(await inRepo(box, `out=$(docker-compose ${files} build 2>&1) || { printf '%s\\n' "$out" | tail -n 20 >&2; exit 1; }`, [], 1_200_000), 'image build')
      must(await inRepo(box, 'docker/site-init.sh --project "$COMPOSE_PROJECT_NAME" "$@" 2>&1', flags, 600_000), 'site-init')
      must(await inRepo(box, `docker-compose ${files} up -d 2>&1`, [], 300_000), 'compose up')
      return { data: { host: box.target.host, repoDir: box.repo, project: box.project, credentialsFile: `${box.repo}/docker/env/credentials`, note: 'generated passwords are in credentialsFile on the box (0600); read them there, they are not returned' } }
    }, { openWorld: true }),

    tool('server_set_env', 'D', 'Change one documented setting and apply it', `docker/set-env.sh on the box: upserts one allowlisted knob of a daemon's env file, checks the new env with the daemon's own config check, applies it with a container recreate (a plain restart does not re-read env files) and reverts on failure. Refused: ${FORBIDDEN_ENV.join(', ')}`, z.strictObject({
      ...host,
      service: SERVICE,
      key: z.string().regex(/^[A-Z][A-Z0-9_]{0,63}$/),
      value: z.string().max(1000).refine((v) => !/[\r\n]/.test(v), 'one line')
    }), async (ctx, a) => {
      const key = a.key as string
      if (FORBIDDEN_ENV.includes(key)) throw new ToolFailure(`refused: ${key} is a secret, wiring or set by the Compose stack; change it by hand on the box`, 'MCP_FORBIDDEN_KEY')
      const known = await documentedKnobs(a.service as string)
      if (!known.has(key)) throw new ToolFailure(`refused: ${key} is not a documented setting of ${String(a.service)} (see docs/${String(a.service)}.md)`, 'MCP_UNKNOWN_KEY')
      const box = boxOf(ctx.config, a.host)
      const r = await inRepo(box, 'docker/set-env.sh --project "$COMPOSE_PROJECT_NAME" "$1" "$2" "$3" 2>&1', [a.service as string, key, a.value as string], 300_000)
      if (r.code === 4) throw new ToolFailure(`not applied: the new value fails ${String(a.service)}'s config check; the env file is unchanged. ${r.stdout.trim().split('\n').slice(-2).join(' ')}`, 'MCP_CONFIG_CHECK')
      if (r.code === 5) throw new ToolFailure(`reverted: ${String(a.service)} was not healthy with ${key} changed; the env file is back and the container recreated`, 'MCP_UNHEALTHY')
      must(r, 'set-env')
      return { data: { service: a.service, key, applied: true, recreated: true } }
    }, { describe: (a) => `set ${String(a.key)} in ${String(a.service)}'s env file, check it, recreate the ${String(a.service)} container (brief downtime), revert on failure`, idempotent: true }),

    tool('server_restart', 'D', 'Restart a daemon\'s container', 'docker-compose restart (keeps the env it started with: use server_set_env to change settings)', z.strictObject({ ...host, service: SERVICE }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      must(await inRepo(box, 'docker-compose $FILES restart "$1" 2>&1', [a.service as string]), 'restart')
      return { data: { service: a.service, restarted: true } }
    }, { describe: (a) => `restart the ${String(a.service)} container (its viewers and operators lose it for a few seconds)` }),

    tool('server_restore', 'D', 'Restore a daemon\'s volume from a backup', 'docker/restore.sh on the box: refuses a non-empty volume or another service\'s archive unless force', z.strictObject({ ...host, service: SERVICE, archive: ARCHIVE, force: z.boolean().default(false) }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const r = await inRepo(box, 'docker/restore.sh --project "$COMPOSE_PROJECT_NAME" $3 "$1" "$ARUS_BACKUP_DIR/$2" 2>&1', [a.service as string, a.archive as string, a.force === true ? '--force' : ''], 600_000)
      if (r.code === 3) throw new ToolFailure(`refused: ${r.stdout.trim().split('\n').pop()?.replace(/^\[restore\] refused: /, '') ?? ''}. Stop the stack and restore into an empty volume, or pass force: true to replace it`, 'MCP_RESTORE_REFUSED')
      must(r, 'restore')
      return { data: { service: a.service, archive: a.archive, restored: true } }
    }, { describe: (a) => `replace ${String(a.service)}'s data volume with ${String(a.archive)}${a.force === true ? ' (force: even if not empty)' : ''}` }),

    tool('server_sysctl', 'D', 'Raise the UDP socket buffer caps', 'docker/sysctl.sh on the box: installs /etc/sysctl.d/99-arus-udp.conf (rmem_max, wmem_max 8 MiB) and applies it (needs root)', z.strictObject(host), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'docker/sysctl.sh 2>&1'), 'sysctl')
      return { data: { applied: out.trim().split('\n') } }
    }, { describe: () => 'write /etc/sysctl.d/99-arus-udp.conf and apply it on the box' }),

    tool('server_update', 'D', 'Update the box to this repository\'s version', 'dryRun: true previews (installed and new version, changed files); otherwise backs up, copies the new code, rebuilds the images and recreates the changed containers', z.strictObject({ ...host, dryRun: z.boolean().default(false) }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const installed = (await inRepo(box, 'cat .arus-installed 2>/dev/null || true')).stdout.trim() || null
      const head = await localCommit()
      const changed = installed && head ? await changedFiles(installed, head) : null
      if (a.dryRun === true) return { data: { dryRun: true, installed, available: head, upToDate: installed !== null && installed === head, changedFiles: changed } }
      must(await inRepo(box, 'docker/backup.sh --project "$COMPOSE_PROJECT_NAME" --dir "$ARUS_BACKUP_DIR" 2>&1', [], 600_000), 'backup before update')
      await copyRepo(box)
      must(await inRepo(box, 'out=$(docker-compose $FILES build 2>&1) || { printf "%s\\n" "$out" | tail -n 20 >&2; exit 1; }; docker-compose $FILES up -d 2>&1', [], 1_200_000), 'build and up')
      return { data: { dryRun: false, from: installed, to: head, changedFiles: changed } }
    }, { openWorld: true, describe: (a) => (a.dryRun === true ? 'preview only (nothing changes)' : 'back up, copy the new code, rebuild and recreate the changed containers') }),

    tool('repeater_status', 'R', 'A repeater\'s state', 'The repeater container of the stack (a re-seeding viewer, if the site runs one): its state, last log lines, and its loopback /metrics when it sets STATUS_PORT', z.strictObject({ ...host, lines: z.number().int().min(1).max(200).default(30) }), async (ctx, a) => {
      const box = boxOf(ctx.config, a.host)
      const out = must(await inRepo(box, 'cid=$(docker ps -aq --filter "label=com.docker.compose.project=$COMPOSE_PROJECT_NAME" --filter "label=com.docker.compose.service=repeater" | head -n 1); [ -n "$cid" ] || { echo "present=no"; exit 0; }; echo "present=yes"; echo "state=$(docker inspect -f "{{.State.Status}}" "$cid")"; port=$(docker inspect -f "{{range .Config.Env}}{{println .}}{{end}}" "$cid" | sed -n "s/^STATUS_PORT=//p"); echo "statusPort=$port"; echo "---logs"; docker logs --tail "$1" "$cid" 2>&1; if [ -n "$port" ]; then echo "---metrics"; docker exec "$cid" node -e "fetch(\\"http://127.0.0.1:$port/metrics\\").then(r=>r.text()).then(t=>process.stdout.write(t),()=>{})"; fi', [String(a.lines)]), 'repeater')
      const [head = '', rest = ''] = out.split('---logs\n')
      const kv = Object.fromEntries(head.trim().split('\n').map((l) => [l.slice(0, l.indexOf('=')), l.slice(l.indexOf('=') + 1)]))
      if (kv.present !== 'yes') return { data: { present: false, note: 'no repeater service in this stack' } }
      const [logs = '', metrics] = rest.split('---metrics\n')
      return { data: { present: true, state: kv.state, statusPort: kv.statusPort || null, logs: logs.split('\n').filter(Boolean), metrics: metrics ?? null } }
    })
  ]
}

/** The documented knobs of a daemon: its env schema's variables. */
async function documentedKnobs (service: string): Promise<Set<string>> {
  const schemas: Record<string, () => Promise<{ shape: Record<string, unknown> }>> = {
    panel: async () => (await import('@arus/panel')).panelEnvSchema,
    broadcaster: async () => (await import('@arus/broadcaster')).broadcasterEnvSchema,
    library: async () => (await import('@arus/library')).libraryEnvSchema,
    reseller: async () => (await import('@arus/reseller')).resellerEnvSchema
  }
  return new Set(Object.keys((await schemas[service]!()).shape))
}

const run = promisify(execFile)
async function localCommit (): Promise<string | null> {
  try { return (await run('git', ['-C', REPO, 'rev-parse', 'HEAD'])).stdout.trim() } catch { return null }
}
async function changedFiles (from: string, to: string): Promise<string[] | null> {
  try { return (await run('git', ['-C', REPO, 'diff', '--name-only', from, to])).stdout.trim().split('\n').filter(Boolean) } catch { return null }
}

/** Streams this repository (no node_modules, dist, .git, env files) into repoDir on the box and stamps the version. */
async function copyRepo (box: Box): Promise<void> {
  const commit = (await localCommit()) ?? 'unknown'
  await new Promise<void>((resolve, reject) => {
    const tar = spawn('tar', ['-C', REPO, '-cz', '--exclude=./node_modules', '--exclude=*/node_modules', '--exclude=*/dist', '--exclude=./.git', '--exclude=./docker/env', '--exclude=./.tools', '--exclude=./.tmp', '.'], { stdio: ['ignore', 'pipe', 'pipe'] })
    const remote = `mkdir -p ${shq(box.repo)} && tar -xz -C ${shq(box.repo)} && printf '%s\\n' ${shq(commit)} > ${shq(`${box.repo}/.arus-installed`)}`
    const ssh = spawn('ssh', [...sshArgs(box.target, []), '--', remote], { stdio: ['pipe', 'ignore', 'pipe'] })
    tar.stdout.pipe(ssh.stdin)
    let err = ''
    ssh.stderr.on('data', (d: Buffer) => { err = (err + d.toString()).slice(-2000) })
    const timer = setTimeout(() => { tar.kill('SIGKILL'); ssh.kill('SIGKILL') }, 300_000)
    ssh.on('close', (code) => {
      clearTimeout(timer)
      if (code === 0) resolve()
      else reject(new ToolFailure(`copying the deploy pack to ${box.target.host} failed: ${err.trim().split('\n').pop() ?? code}`))
    })
  })
}

