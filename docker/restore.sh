#!/usr/bin/env bash
# Puts a backup archive back into a daemon's data volume (docs/deploy.md "Restore"):
#
#   docker/restore.sh [--project NAME] [--force] <service> <archive>
#
# Refused (exit 3) unless --force: an archive whose name or manifest is for another service,
# and a target volume that is not empty (restore into a fresh volume; --force replaces what
# is there). The service is stopped first and started again afterwards when it was running.
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT=${COMPOSE_PROJECT_NAME:-arus}
FORCE=0
ARGS=()
while [ $# -gt 0 ]; do
  case "$1" in
    --project) PROJECT=$2; shift 2 ;;
    --force) FORCE=1; shift ;;
    -*) echo "usage: $0 [--project NAME] [--force] <service> <archive>" >&2; exit 2 ;;
    *) ARGS+=("$1"); shift ;;
  esac
done
[ ${#ARGS[@]} -eq 2 ] || { echo "usage: $0 [--project NAME] [--force] <service> <archive>" >&2; exit 2; }
svc=${ARGS[0]}
archive=${ARGS[1]}
case "$svc" in panel|broadcaster|library|reseller) ;; *) echo "unknown service $svc" >&2; exit 2 ;; esac
[ -f "$archive" ] || { echo "no such archive: $archive" >&2; exit 2; }
DOCKER=${DOCKER:-docker}
IMAGE=${ARUS_IMAGE:-arus:latest}
log() { printf '[restore] %s\n' "$*" >&2; }
refuse() { log "refused: $*"; exit 3; }
dir=$(cd "$(dirname "$archive")" && pwd)
name=$(basename "$archive")
vol="${PROJECT}_${svc}-data"

# The archive must be this service's: by its name and by its manifest.
case "$name" in "arus-$svc-"*.tar.gz) ;; *) [ "$FORCE" = 1 ] || refuse "$name is not an archive of $svc (arus-$svc-*.tar.gz); --force to use it anyway" ;; esac
manifest=$(tar -xzOf "$archive" arus-backup.json 2>/dev/null || true)
case "$manifest" in *"\"service\":\"$svc\""*) ;; *) [ "$FORCE" = 1 ] || refuse "$name holds no arus-backup.json for $svc; --force to use it anyway" ;; esac

if $DOCKER volume inspect "$vol" >/dev/null 2>&1; then
  used=$($DOCKER run --rm --network none --user root --entrypoint sh -v "$vol:/data:ro" "$IMAGE" -c 'ls -A /data | head -n 1')
  [ -z "$used" ] || [ "$FORCE" = 1 ] || refuse "volume $vol is not empty; restore into an empty volume, or --force to replace its content"
else
  # Labelled as compose makes it, so `up` adopts it.
  $DOCKER volume create --label "com.docker.compose.project=$PROJECT" --label "com.docker.compose.volume=$svc-data" --label "com.docker.compose.version=1.29.2" "$vol" >/dev/null
fi
cid=$($DOCKER ps -q --filter "label=com.docker.compose.project=$PROJECT" --filter "label=com.docker.compose.service=$svc")
[ -n "$cid" ] && { log "stopping $svc"; $DOCKER stop -t 25 $cid >/dev/null; }
$DOCKER run --rm --network none --user root --entrypoint sh -v "$vol:/data" -v "$dir:/backup:ro" "$IMAGE" -c '
  set -e
  find /data -mindepth 1 -delete
  tar -xzf "/backup/$1" -C /data --strip-components=1 data
  # Each store'"'"'s CORESTORE device file ties it to the inode it was made on and refuses a
  # copy ("moved unsafely"): a restored store is this box'"'"'s store from now on, so the file
  # is made afresh at the next start. (Never run the original and a restored copy at once.)
  find /data -type f -name CORESTORE -delete
  chown -R arus:arus /data' sh "$name"
log "$vol restored from $name"
[ -n "$cid" ] && { $DOCKER start $cid >/dev/null; log "$svc started again"; }
exit 0
