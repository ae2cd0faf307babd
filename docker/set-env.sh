#!/usr/bin/env bash
# Sets one documented knob in a daemon's env file and applies it (docs/deploy.md "Changing a
# setting"; the tool server's server_set_env runs this):
#
#   docker/set-env.sh [--project NAME] <service> <KEY> <VALUE>
#
# 1. refuses the keys that are secrets or wiring (exit 3): PUBLISHER_KEY, PANEL_PUBKEY,
#    WEBHOOK_SECRET, REPORTS_MSGR_BOT_TOKEN, REPORTS_WEBHOOK_URL, PANEL_ADMIN_PASS, and what
#    Compose sets (DATA_DIR, BACKUP_DIR, ADMIN_ENABLED, CONTROL_ENABLED);
# 2. keeps a copy of the env file, upserts KEY=VALUE;
# 3. dry-runs the new env through the daemon's own check (`arus-<service> check-env` in a
#    throwaway container): on failure the copy is put back (exit 4), nothing restarted;
# 4. applies it with a container recreate (a plain restart does not re-read env files) and waits
#    for the healthcheck; unhealthy within 90 s → the copy is put back and the container
#    recreated again (exit 5).
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT=${COMPOSE_PROJECT_NAME:-arus}
[ "${1:-}" = "--project" ] && { PROJECT=$2; shift 2; }
[ $# -eq 3 ] || { echo "usage: $0 [--project NAME] <service> <KEY> <VALUE>" >&2; exit 2; }
svc=$1 key=$2 value=$3
case "$svc" in panel|broadcaster|library|reseller) ;; *) echo "unknown service $svc" >&2; exit 2 ;; esac
[[ "$key" =~ ^[A-Z][A-Z0-9_]{0,63}$ ]] || { echo "not a variable name: $key" >&2; exit 2; }
case "$value" in *$'\n'*|*$'\r'*) echo "a value is one line" >&2; exit 2 ;; esac
case "$key" in
  PUBLISHER_KEY|PANEL_PUBKEY|WEBHOOK_SECRET|REPORTS_MSGR_BOT_TOKEN|REPORTS_WEBHOOK_URL|PANEL_ADMIN_PASS)
    echo "refused: $key is a secret or wiring; change it by hand on the box" >&2; exit 3 ;;
  DATA_DIR|BACKUP_DIR|ADMIN_ENABLED|CONTROL_ENABLED)
    echo "refused: $key is set by the Compose stack" >&2; exit 3 ;;
esac
export ARUS_ENV_DIR=${ARUS_ENV_DIR:-$PWD/docker/env}
file="$ARUS_ENV_DIR/$svc.env"
[ -f "$file" ] || { echo "no env file $file (run docker/site-init.sh first)" >&2; exit 2; }
FILES=(-f docker/compose.yaml)
[ -f "$ARUS_ENV_DIR/library.env" ] && FILES+=(-f docker/compose.library.yaml)
[ -f "$ARUS_ENV_DIR/reseller.env" ] && FILES+=(-f docker/compose.reseller.yaml)
[ -f "$ARUS_ENV_DIR/repeater.env" ] && FILES+=(-f docker/compose.repeater.yaml)
dc() { docker-compose -p "$PROJECT" "${FILES[@]}" "$@"; }
log() { printf '[set-env] %s\n' "$*" >&2; }

backup="$file.bak"
cp -p "$file" "$backup"
tmp=$(mktemp)
awk -v k="$key" -v v="$value" 'BEGIN { done = 0 } { if (!done && ($0 ~ "^# ?" k "=" || $0 ~ "^" k "=")) { print k "=" v; done = 1 } else print } END { if (!done) print k "=" v }' "$file" > "$tmp"
cat "$tmp" > "$file"; rm -f "$tmp"
revert() { cat "$backup" > "$file"; }

# The check runs in a throwaway container of the service's image with the new env file and what
# Compose adds (`docker-compose run` cannot start beside running host-network containers).
case "$svc" in panel|reseller) image=${ARUS_IMAGE:-arus:latest} ;; *) image=${ARUS_MEDIA_IMAGE:-arus-media:latest} ;; esac
if ! out=$(docker run --rm --network none --env-file "$file" -e DATA_DIR=/data -e BACKUP_DIR=/backups -e ADMIN_ENABLED=1 -e CONTROL_ENABLED=1 "$image" "arus-$svc" check-env 2>&1 </dev/null); then
  revert
  log "the new environment fails $svc's check; the env file is back as it was"
  printf '%s\n' "$out" | grep -E 'error|invalid' | tail -n 3 >&2
  exit 4
fi

healthy() {
  local cid status
  cid=$(dc ps -q "$svc")
  for _ in $(seq 1 90); do
    status=$(docker inspect -f '{{if .State.Health}}{{.State.Health.Status}}{{else}}{{.State.Status}}{{end}}' "$cid" 2>/dev/null || echo gone)
    case "$status" in healthy) return 0 ;; unhealthy|exited|dead|gone) return 1 ;; esac
    sleep 1
  done
  return 1
}
dc up -d --no-deps --force-recreate "$svc" >/dev/null 2>&1
if ! healthy; then
  revert
  dc up -d --no-deps --force-recreate "$svc" >/dev/null 2>&1 || true
  log "$svc was not healthy with $key changed; the env file is back as it was and $svc recreated"
  exit 5
fi
log "$svc recreated with $key set"
