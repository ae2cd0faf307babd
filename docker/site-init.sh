#!/usr/bin/env bash
# First run of a site (docs/deploy.md "First run"): env files, the panel's identity, admins,
# publishers, and the wiring of each daemon to the panel. Run once, from the repository root,
# before the first `up`; safe to run again (existing identity, admins and publishers are kept).
#
#   docker/site-init.sh [--project NAME] [--library] [--reseller] [--repeater]
#
# Env files live in ARUS_ENV_DIR (default docker/env): made from each daemon's generated
# .env.example when missing, then given what the wiring needs (PANEL_PUBKEY, PUBLISHER_NAME,
# PUBLISHER_KEY, PANEL_ADMIN_URL, PANEL_ADMIN_PASS; with --repeater the repeater's BOOTSTRAP and
# STATUS_PORT, and its swarm key in the broadcaster's ORIGIN_RELAY_KEYS). Generated passwords go
# to $ARUS_ENV_DIR/credentials (0600), never to the terminal. Secrets minted here (publisher
# keys) are written to the env files only.
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT=${COMPOSE_PROJECT_NAME:-arus}
LIBRARY=0
RESELLER=0
REPEATER=0
while [ $# -gt 0 ]; do
  case "$1" in
    --project) PROJECT=$2; shift 2 ;;
    --library) LIBRARY=1; shift ;;
    --reseller) RESELLER=1; shift ;;
    --repeater) REPEATER=1; shift ;;
    *) echo "usage: $0 [--project NAME] [--library] [--reseller] [--repeater]" >&2; exit 2 ;;
  esac
done
ENV_DIR=${ARUS_ENV_DIR:-docker/env}
export ARUS_ENV_DIR=$(cd "$(dirname "$ENV_DIR")" && pwd)/$(basename "$ENV_DIR")
FILES=(-f docker/compose.yaml)
[ "$LIBRARY" = 1 ] && FILES+=(-f docker/compose.library.yaml)
[ "$RESELLER" = 1 ] && FILES+=(-f docker/compose.reseller.yaml)
[ "$REPEATER" = 1 ] && FILES+=(-f docker/compose.repeater.yaml)
COMPOSE=${COMPOSE:-docker-compose}
dc() { $COMPOSE -p "$PROJECT" "${FILES[@]}" "$@"; }
# A one-shot command of a daemon's CLI in a throwaway container of its image, on its volume
# (made with Compose's labels when missing, so `up` adopts it); stdin is passed. Not
# `docker-compose run`, which cannot start beside running host-network containers.
cli() {
  local svc=$1; shift
  local vol="${PROJECT}_${svc}-data" image
  case "$svc" in panel|reseller|repeater) image=${ARUS_IMAGE:-arus:latest} ;; *) image=${ARUS_MEDIA_IMAGE:-arus-media:latest} ;; esac
  docker volume inspect "$vol" >/dev/null 2>&1 || docker volume create --label "com.docker.compose.project=$PROJECT" --label "com.docker.compose.volume=$svc-data" --label com.docker.compose.version=1.29.2 "$vol" >/dev/null
  docker run --rm -i --network none -v "$vol:/data" --env-file "$ARUS_ENV_DIR/$svc.env" -e DATA_DIR=/data "$image" "arus-$svc" --json "$@"
}
log() { printf '[site-init] %s\n' "$*" >&2; }
json_field() { tr -d '\n' | sed -n "s/.*\"$1\": *\"\\([^\"]*\\)\".*/\\1/p"; }
password() { head -c 18 /dev/urandom | base64 | tr '+/' '-_'; }

# env_set FILE KEY VALUE: replaces `KEY=...` or `# KEY=...`, or appends.
env_set() {
  local file=$1 key=$2 value=$3
  if grep -qE "^#? ?$key=" "$file"; then
    local tmp; tmp=$(mktemp)
    awk -v k="$key" -v v="$value" 'BEGIN { done = 0 } { if (!done && ($0 ~ "^# ?" k "=" || $0 ~ "^" k "=")) { print k "=" v; done = 1 } else print }' "$file" > "$tmp"
    cat "$tmp" > "$file"; rm -f "$tmp"
  else
    printf '%s=%s\n' "$key" "$value" >> "$file"
  fi
}
env_get() { sed -n "s/^$2=//p" "$1" | tail -n 1; }

mkdir -p "$ARUS_ENV_DIR"
chmod 700 "$ARUS_ENV_DIR"
DAEMONS=(panel broadcaster)
[ "$LIBRARY" = 1 ] && DAEMONS+=(library)
[ "$RESELLER" = 1 ] && DAEMONS+=(reseller)
[ "$REPEATER" = 1 ] && DAEMONS+=(repeater)
for d in "${DAEMONS[@]}"; do
  if [ ! -f "$ARUS_ENV_DIR/$d.env" ]; then
    log "creating $ARUS_ENV_DIR/$d.env from apps/$d/.env.example"
    install -m 600 "apps/$d/.env.example" "$ARUS_ENV_DIR/$d.env"
  fi
done
CRED="$ARUS_ENV_DIR/credentials"
touch "$CRED"; chmod 600 "$CRED"
cred_get() { sed -n "s/^$1=//p" "$CRED" | tail -n 1; }
cred_put() { [ -n "$(cred_get "$1")" ] || printf '%s=%s\n' "$1" "$2" >> "$CRED"; }

PANEL_KEY=$(env_get "$ARUS_ENV_DIR/broadcaster.env" PANEL_PUBKEY)
if [ -z "$PANEL_KEY" ]; then
  log "panel: identity"
  PANEL_KEY=$(cli panel init </dev/null | json_field panelKey)
  [ -n "$PANEL_KEY" ] || { log "arus-panel init printed no panelKey (already initialized? put its key in broadcaster.env PANEL_PUBKEY)"; exit 1; }
fi

add_admin() { # add_admin SERVICE NAME CREDKEY
  local svc=$1 name=$2 key=$3
  if [ -z "$(cred_get "$key")" ]; then
    local pw; pw=$(password)
    printf '%s\n' "$pw" | cli "$svc" add-admin "$name" >/dev/null
    cred_put "$key" "$name:$pw"
    log "$svc: admin $name added (password in $CRED)"
  fi
}
add_admin panel admin PANEL_ADMIN

publisher() { # publisher NAME SCOPES ENVFILE
  local name=$1 scopes=$2 file=$3
  env_set "$file" PANEL_PUBKEY "$PANEL_KEY"
  if [ -z "$(env_get "$file" PUBLISHER_KEY)" ]; then
    local secret; secret=$(cli panel add-publisher "$name" --scopes "$scopes" </dev/null | json_field secretKey)
    [ -n "$secret" ] || { log "arus-panel add-publisher $name printed no key"; exit 1; }
    env_set "$file" PUBLISHER_NAME "$name"
    env_set "$file" PUBLISHER_KEY "$secret"
    log "panel: publisher $name enrolled; its key is in $(basename "$file") only"
  fi
}
publisher site "${ARUS_SITE_SCOPES:-*}" "$ARUS_ENV_DIR/broadcaster.env"
add_admin broadcaster op BROADCASTER_ADMIN

if [ "$LIBRARY" = 1 ]; then
  publisher library "${ARUS_LIBRARY_SCOPES:-vod.*}" "$ARUS_ENV_DIR/library.env"
  add_admin library op LIBRARY_ADMIN
fi

if [ "$RESELLER" = 1 ]; then
  # The reseller calls the panel's admin API on this box (host networking): wire it to the
  # panel's own ADMIN_HOST:ADMIN_PORT (their defaults when panel.env leaves them unset).
  if [ -z "$(env_get "$ARUS_ENV_DIR/reseller.env" PANEL_ADMIN_URL)" ]; then
    host=$(env_get "$ARUS_ENV_DIR/panel.env" ADMIN_HOST); port=$(env_get "$ARUS_ENV_DIR/panel.env" ADMIN_PORT)
    case "${host:-127.0.0.1}" in *:*) host="[${host}]" ;; esac
    env_set "$ARUS_ENV_DIR/reseller.env" PANEL_ADMIN_URL "http://${host:-127.0.0.1}:${port:-3210}"
    log "reseller: PANEL_ADMIN_URL=http://${host:-127.0.0.1}:${port:-3210} (the panel's admin API)"
  fi
  if [ -z "$(env_get "$ARUS_ENV_DIR/reseller.env" PANEL_ADMIN_PASS)" ]; then
    pw=$(password)
    printf '%s\n' "$pw" | cli panel add-admin reseller >/dev/null
    env_set "$ARUS_ENV_DIR/reseller.env" PANEL_ADMIN_USER reseller
    env_set "$ARUS_ENV_DIR/reseller.env" PANEL_ADMIN_PASS "$pw"
    log "panel: admin reseller added for the reseller service"
  fi
  if [ -z "$(cred_get RESELLER_ROOT)" ]; then
    pw=$(password)
    printf '%s\n' "$pw" | cli reseller create-admin root >/dev/null
    cred_put RESELLER_ROOT "root:$pw"
    log "reseller: root admin created (password in $CRED)"
  fi
fi
if [ "$REPEATER" = 1 ]; then
  # A repeater follows the panel by its public key alone, on the site's DHT (panel.env's
  # BOOTSTRAP when repeater.env sets none; both empty = the public DHT). STATUS_PORT 3340 (the
  # pack's port for it, DAEMON_PORTS.repeater) gives the healthcheck and repeater_status its
  # /healthz and /metrics on loopback; a value already in repeater.env is kept (0: no socket).
  f="$ARUS_ENV_DIR/repeater.env"
  env_set "$f" PANEL_PUBKEY "$PANEL_KEY"
  if [ -z "$(env_get "$f" BOOTSTRAP)" ]; then
    bs=$(env_get "$ARUS_ENV_DIR/panel.env" BOOTSTRAP)
    [ -n "$bs" ] && { env_set "$f" BOOTSTRAP "$bs"; log "repeater: BOOTSTRAP from panel.env"; }
  fi
  [ -n "$(env_get "$f" STATUS_PORT)" ] || env_set "$f" STATUS_PORT 3340
  # The origin sends each media block to the repeater first once it knows the repeater's swarm
  # key: mint it now on the repeater's volume (`up` keeps using it) and add it to the
  # broadcaster's ORIGIN_RELAY_KEYS, keeping the keys already listed (other repeaters).
  rkey=$(cli repeater key </dev/null | json_field publicKey)
  [ -n "$rkey" ] || { log "arus-repeater key printed no publicKey"; exit 1; }
  relays=$(env_get "$ARUS_ENV_DIR/broadcaster.env" ORIGIN_RELAY_KEYS)
  case ",$relays," in
    *",$rkey,"*) ;;
    *) env_set "$ARUS_ENV_DIR/broadcaster.env" ORIGIN_RELAY_KEYS "${relays:+$relays,}$rkey"
       log "broadcaster: repeater key $rkey added to ORIGIN_RELAY_KEYS (\`up -d\` recreates a running broadcaster with it)" ;;
  esac
fi
log "done: panel key $PANEL_KEY. Start the site with: docker-compose -p $PROJECT ${FILES[*]} up -d"
