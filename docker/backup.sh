#!/usr/bin/env bash
# Archives each daemon's data volume into the backup folder (docs/deploy.md "Backups"):
#
#   docker/backup.sh [--project NAME] [--dir BACKUP_DIR] [--keep N] [service ...]
#
# Consistency: the service is stopped for the copy and started again (a few seconds per
# daemon). A running daemon's stores (RocksDB, Hypercore) are written at any moment, so a copy
# of a live volume could hold torn files; a stopped one is exact. Archives are named
# arus-<service>-<UTC yyyymmddThhmmssZ>.tar.gz (the panel's GET /api/backups lists them) and
# hold arus-backup.json (service, volume, time) and data/ (the volume). The newest N per
# service are kept (default 14). Prints one line per archive: its path.
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT=${COMPOSE_PROJECT_NAME:-arus}
DIR=${ARUS_BACKUP_DIR:-/var/backups/arus}
KEEP=14
SERVICES=()
while [ $# -gt 0 ]; do
  case "$1" in
    --project) PROJECT=$2; shift 2 ;;
    --dir) DIR=$2; shift 2 ;;
    --keep) KEEP=$2; shift 2 ;;
    -*) echo "usage: $0 [--project NAME] [--dir BACKUP_DIR] [--keep N] [service ...]" >&2; exit 2 ;;
    *) SERVICES+=("$1"); shift ;;
  esac
done
case "$KEEP" in ''|*[!0-9]*) echo "--keep: a whole number" >&2; exit 2 ;; esac
DOCKER=${DOCKER:-docker}
IMAGE=${ARUS_IMAGE:-arus:latest}
log() { printf '[backup] %s\n' "$*" >&2; }
# The folder is listable (0755: the panel's GET /api/backups reads names and sizes through a
# read-only mount, as another user); the archives hold private keys and are 0600, root's.
[ -d "$DIR" ] || install -d -m 755 "$DIR"
DIR=$(cd "$DIR" && pwd)
if [ ${#SERVICES[@]} -eq 0 ]; then
  for s in panel broadcaster library reseller; do
    if $DOCKER volume inspect "${PROJECT}_${s}-data" >/dev/null 2>&1; then SERVICES+=("$s"); fi
  done
fi
[ ${#SERVICES[@]} -gt 0 ] || { log "no arus volumes in project $PROJECT"; exit 1; }

for svc in "${SERVICES[@]}"; do
  case "$svc" in panel|broadcaster|library|reseller) ;; *) log "unknown service $svc"; exit 2 ;; esac
  vol="${PROJECT}_${svc}-data"
  $DOCKER volume inspect "$vol" >/dev/null 2>&1 || { log "no volume $vol"; exit 1; }
  # The service's container (by compose labels), running or not.
  cid=$($DOCKER ps -q --filter "label=com.docker.compose.project=$PROJECT" --filter "label=com.docker.compose.service=$svc")
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  name="arus-$svc-$stamp.tar.gz"
  [ -n "$cid" ] && { log "stopping $svc for a consistent copy"; $DOCKER stop -t 25 $cid >/dev/null; }
  status=0
  $DOCKER run --rm --network none --user root --entrypoint sh \
    -v "$vol:/data:ro" -v "$DIR:/backup" "$IMAGE" -c '
      set -e
      umask 077
      meta=$(mktemp -d)
      printf "{\"kind\":\"arus-backup\",\"service\":\"%s\",\"volume\":\"%s\",\"createdAt\":\"%s\"}\n" "$1" "$2" "$3" > "$meta/arus-backup.json"
      tar -czf "/backup/.$4.part" -C "$meta" arus-backup.json --transform "s,^\./,data/," -C /data .
      mv "/backup/.$4.part" "/backup/$4"' sh "$svc" "$vol" "$stamp" "$name" || status=$?
  [ -n "$cid" ] && { $DOCKER start $cid >/dev/null; log "$svc started again"; }
  [ "$status" = 0 ] || { log "archiving $vol failed"; rm -f "$DIR/.$name.part"; exit 1; }
  echo "$DIR/$name"
  # Retention: the newest KEEP archives of this service.
  ls -1t "$DIR"/arus-"$svc"-*.tar.gz 2>/dev/null | tail -n +"$((KEEP + 1))" | while read -r old; do rm -f -- "$old"; log "pruned $(basename "$old")"; done
done
