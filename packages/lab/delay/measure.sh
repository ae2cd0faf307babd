#!/usr/bin/env bash
# Proves and measures the delay stage (arus-delay.c) in throw-away network namespaces.
# Run as root: bash packages/lab/delay/measure.sh        (~35 s, hard limit ~56 s)
#
# Topology (the lab's core in miniature): ld-m-a (10.99.1.2) and ld-m-b (10.99.2.2) hang
# off the router ld-m-inet by veth links; everything ld-m-inet forwards goes through the
# tun device dly0 (policy routing), where arus-delay holds it.
#
# Env knobs: RATES="2000 10000 30000 60000" (flood packets/s), SIZE=1200 (UDP payload
# bytes), SECS=3 (per rate), SCHED=none|nice|fifo (how the stage is run: as is,
# under `nice -n -10`, or with `--rt 10`, i.e. SCHED_FIFO), TXQLEN=500 (dly0's
# txqueuelen; 500 is the tun default).
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
P=ld-m-                      # every namespace made here starts with this (and is removed)
RATES=${RATES:-"2000 10000 30000 60000"}
SIZE=${SIZE:-1200}
SECS=${SECS:-3}
SCHED=${SCHED:-none}
TXQLEN=${TXQLEN:-500}
WORK=$(mktemp -d /tmp/ld-measure.XXXXXX)
BIN=$WORK/arus-delay
TOOL=$HERE/udp-tool.mjs
PIDS=()                      # background processes started here
DELAY_PID=

[[ $(id -u) == 0 ]] || { echo "measure.sh: needs root (network namespaces)" >&2; exit 1; }

cleanup() {
  set +e
  for pid in "${PIDS[@]}"; do kill -TERM "$pid" 2>/dev/null; done
  sleep 0.2
  for ns in ${P}inet ${P}a ${P}b; do
    [[ -e /var/run/netns/$ns ]] || continue
    for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null; done
    ip netns del "$ns" 2>/dev/null
  done
  [[ -n ${WATCHDOG:-} ]] && kill "$WATCHDOG" 2>/dev/null
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'echo "measure.sh: interrupted" >&2; exit 130' INT TERM
# Hard time limit: the watchdog ends the probes running in our namespaces (so a waiting
# foreground command returns) and signals this script, whose traps clean up and stop it.
MAIN=$$
watchdog() {
  sleep 55 & local s=$!
  trap 'kill $s 2>/dev/null; exit 0' TERM
  wait $s
  echo "measure.sh: time limit reached" >&2
  for ns in ${P}inet ${P}a ${P}b; do
    [[ -e /var/run/netns/$ns ]] && for pid in $(ip netns pids "$ns"); do kill -TERM "$pid" 2>/dev/null; done
  done
  kill -TERM "$MAIN"
}
watchdog &
WATCHDOG=$!

log() { printf '%s\n' "$*" >&2; }
json() { node -e "const j=JSON.parse(require('fs').readFileSync(0,'utf8').trim().split('\n').pop());console.log($1)"; }

log "load average before the run: $(cut -d' ' -f1-3 /proc/loadavg) ($(nproc) CPUs)"

# ---- build ------------------------------------------------------------------------------
gcc -std=c11 -O2 -Wall -Wextra -Werror -o "$BIN" "$HERE/arus-delay.c"

# ---- namespaces -------------------------------------------------------------------------
for ns in ${P}inet ${P}a ${P}b; do   # leftovers of an interrupted run (ours: same prefix)
  if [[ -e /var/run/netns/$ns ]]; then
    for pid in $(ip netns pids "$ns"); do kill -KILL "$pid" 2>/dev/null || true; done
    ip netns del "$ns"
  fi
done
for ns in inet a b; do
  ip netns add ${P}$ns
  ip -n ${P}$ns link set lo up
  ip netns exec ${P}$ns sysctl -qw net.ipv4.conf.all.rp_filter=0 net.ipv4.conf.default.rp_filter=0
done
ip netns exec ${P}inet sysctl -qw net.ipv4.ip_forward=1
ip -n ${P}inet tuntap add dev dly0 mode tun
ip -n ${P}inet link set dly0 txqueuelen "$TXQLEN" up
ip netns exec ${P}inet sysctl -qw net.ipv4.conf.dly0.rp_filter=0 net.ipv6.conf.dly0.disable_ipv6=1
ip -n ${P}inet route add default dev dly0 table 100
i=1
for ns in a b; do
  ip link add v$ns netns ${P}inet type veth peer name eth0 netns ${P}$ns
  ip -n ${P}inet addr add 10.99.$i.1/24 dev v$ns
  ip -n ${P}inet link set v$ns up
  ip -n ${P}$ns addr add 10.99.$i.2/24 dev eth0
  ip -n ${P}$ns link set eth0 up
  ip -n ${P}$ns route add default via 10.99.$i.1
  ip -n ${P}inet rule add iif v$ns lookup 100 priority 100
  i=$((i + 1))
done

# ---- helpers ----------------------------------------------------------------------------
RT=()
case $SCHED in
  none) RUN=() ;;
  nice) RUN=(nice -n -10) ;;
  fifo) RUN=() ; RT=(--rt 10) ;;
  *) log "measure.sh: SCHED must be none, nice or fifo"; exit 2 ;;
esac

wait_ready() { # <file> <what>
  for _ in $(seq 100); do grep -qx ready "$1" 2>/dev/null && return 0; sleep 0.05; done
  log "measure.sh: $2 did not get ready"; cat "$1" >&2; exit 1
}

start_delay() { # <rule>...
  : > "$WORK/delay.out"
  ip netns exec ${P}inet "${RUN[@]}" "$BIN" --tun dly0 --seed 42 "${RT[@]}" --stats "$WORK/stats.json" "$@" \
    > "$WORK/delay.out" 2> "$WORK/delay.err" &
  DELAY_PID=$!
  PIDS+=("$DELAY_PID")
  wait_ready "$WORK/delay.out" arus-delay
}

stop_delay() {
  kill -TERM "$DELAY_PID"
  local rc=0
  wait "$DELAY_PID" || rc=$?
  [[ $rc == 0 ]] || { log "measure.sh: arus-delay exited $rc"; cat "$WORK/delay.err" >&2; exit 1; }
}

tun_drops() { ip -n ${P}inet -s -j link show dly0 | json 'j[0].stats64.tx.dropped'; }
udp_rcvbuf_errors() { ip netns exec ${P}b cat /proc/net/snmp | awk '/^Udp:/ { n++; if (n == 2) print $6 }'; }

sink_start() { # <seconds>
  : > "$WORK/sink.out"
  ip netns exec ${P}b timeout 20 node "$TOOL" sink 10.99.2.2 9001 "$1" > "$WORK/sink.out" &
  SINK_PID=$!
  PIDS+=("$SINK_PID")
  wait_ready "$WORK/sink.out" sink
}

# ---- 1. RTT and jitter ------------------------------------------------------------------
log "== 1. RTT: rules 10.99.1.0/24=20:5 (A) and 10.99.2.0/24=30:5 (B), 150 probes at 20 ms"
log "   expected: each way 50 ms + U[0,10] ms → RTT uniform-sum in [100,120] ms, mean 110, sd 4.08"
start_delay 10.99.1.0/24=20:5 10.99.2.0/24=30:5
: > "$WORK/echo.out"
ip netns exec ${P}b node "$TOOL" echo 10.99.2.2 9000 > "$WORK/echo.out" &
PIDS+=($!)
wait_ready "$WORK/echo.out" echo
ip netns exec ${P}a timeout 20 node "$TOOL" rtt 10.99.2.2 9000 150 20 > "$WORK/rtt.out"
stop_delay
echo "RTT jitter   $(json 'JSON.stringify(j)' < "$WORK/rtt.out")"

log "== 1b. RTT without jitter: 10.99.1.0/24=20, 10.99.2.0/24=30 (expected 100 ms)"
start_delay 10.99.1.0/24=20 10.99.2.0/24=30
ip netns exec ${P}a timeout 20 node "$TOOL" rtt 10.99.2.2 9000 100 20 > "$WORK/rtt0.out"
stop_delay
echo "RTT fixed    $(json 'JSON.stringify(j)' < "$WORK/rtt0.out")"

log "== 1c. the stage's own cost: rules =0 (through the tun, no delay) vs. no steering at all"
start_delay 10.99.1.0/24=0 10.99.2.0/24=0
ip netns exec ${P}a timeout 20 node "$TOOL" rtt 10.99.2.2 9000 100 10 > "$WORK/rttz.out"
stop_delay
for v in va vb; do ip -n ${P}inet rule del iif $v lookup 100 priority 100; done
ip netns exec ${P}a timeout 20 node "$TOOL" rtt 10.99.2.2 9000 100 10 > "$WORK/rttd.out"
for v in va vb; do ip -n ${P}inet rule add iif $v lookup 100 priority 100; done
echo "RTT zero     $(json 'JSON.stringify(j.rttMs)' < "$WORK/rttz.out")"
echo "RTT direct   $(json 'JSON.stringify(j.rttMs)' < "$WORK/rttd.out")"

# ---- 2. loss and order ------------------------------------------------------------------
log "== 2. loss + order: A=20:5:5 (5 % loss), B=30:5, one-way stream A→B 5000 pkt/s for 3 s"
log "   expected: 5 % ± 0.18 % lost (1 sd for n=15000), 0 reordered despite 10 ms jitter at 0.2 ms spacing"
start_delay 10.99.1.0/24=20:5:5 10.99.2.0/24=30:5
sink_start 4
ip netns exec ${P}a timeout 20 node "$TOOL" flood 10.99.2.2 9001 5000 3 200 > /dev/null
wait "$SINK_PID" || true
stop_delay
echo "loss+order   $(json 'JSON.stringify(j)' < "$WORK/sink.out")"
echo "  stage      $(cat "$WORK/stats.json")"

# ---- 3. throughput ----------------------------------------------------------------------
log "== 3. throughput: A=20:5, B=30:5 (one way 50-60 ms), UDP $SIZE-byte payloads, $SECS s per rate, SCHED=$SCHED, txqueuelen $TXQLEN"
printf '%-8s %-8s %-8s %-8s %-7s %-7s %-8s %-18s %-11s %s\n' target sent/s recv/s Mbit/s lost% tunDrop rcvbufEr 'late p50/p99/max' 'CPU usr+sys' 'one-way p50/p99 ms'
for rate in $RATES; do
  start_delay 10.99.1.0/24=20:5 10.99.2.0/24=30:5
  d0=$(tun_drops); e0=$(udp_rcvbuf_errors)
  sink_start $((SECS + 1))
  ip netns exec ${P}a timeout 20 node "$TOOL" flood 10.99.2.2 9001 "$rate" "$SECS" "$SIZE" > "$WORK/flood.out"
  wait "$SINK_PID" || true
  stop_delay
  d1=$(tun_drops); e1=$(udp_rcvbuf_errors)
  sent=$(json 'j.pps' < "$WORK/flood.out")
  node -e '
    const [s, k, st] = [1, 2, 3].map((i) => JSON.parse(require("fs").readFileSync(process.argv[i], "utf8").trim().split("\n").pop()))
    const [rate, sent, drops, rcvErr, secs] = process.argv.slice(4).map(Number)
    const cpu = `${(st.cpuUserMs / (secs * 10)).toFixed(1)}+${(st.cpuSysMs / (secs * 10)).toFixed(1)}%`
    const lossPct = (100 * (1 - k.received / s.sent)).toFixed(2)
    console.log([String(rate).padEnd(8), String(sent).padEnd(8), String(k.pps).padEnd(8), String(k.mbit).padEnd(8), lossPct.padEnd(7),
      String(drops).padEnd(7), String(rcvErr).padEnd(8), `${st.lateP50Us}/${st.lateP99Us}/${st.lateMaxUs} us`.padEnd(18), cpu.padEnd(11),
      k.oneWayMs ? `${k.oneWayMs.p50}/${k.oneWayMs.p99}` : "-"].join(" "))
  ' "$WORK/flood.out" "$WORK/sink.out" "$WORK/stats.json" "$rate" "$sent" $((d1 - d0)) $((e1 - e0)) "$SECS"
done
log "(lost% = not received by the sink; tunDrop = dropped in dly0's queue before the stage read them;"
log " rcvbufEr = dropped at the sink's socket; late = stage write time minus scheduled release; CPU = stage user+sys time / $SECS s, % of one CPU)"
log "load average during the run: $(cut -d' ' -f1-3 /proc/loadavg)"
