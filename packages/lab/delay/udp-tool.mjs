// UDP probes for measure.sh (the delay stage's tests). No dependencies; Node >= 18.
// Every datagram carries: u32 magic, u32 seq, u64 send time (process.hrtime, i.e.
// CLOCK_MONOTONIC, shared by all network namespaces of the machine, so one-way latency
// can be measured across namespaces), padded to the requested size.
//
//   node udp-tool.mjs echo  <bind-addr> <port>
//       echoes every datagram back to its sender, until SIGTERM
//   node udp-tool.mjs rtt   <addr> <port> <count> <interval-ms> [<size>]
//       sends <count> probes, prints JSON: sent, received, lossPct, rtt percentiles, reordered
//   node udp-tool.mjs sink  <bind-addr> <port> <seconds>
//       counts what arrives for <seconds> (or until SIGTERM), prints JSON: received, bytes,
//       rate, lost (by sequence gaps), reordered, duplicates, one-way latency percentiles
//   node udp-tool.mjs flood <addr> <port> <pps> <seconds> [<size>]
//       sends <pps> datagrams a second (paced per millisecond tick), prints JSON
// A tool prints `ready` on stdout once its socket is bound.
import dgram from 'node:dgram'

const MAGIC = 0x41525553 // "ARUS"
const HEADER = 16
const [mode, ...args] = process.argv.slice(2)
const now = () => process.hrtime.bigint()

function packet (seq, size) {
  const buf = Buffer.alloc(Math.max(HEADER, size))
  buf.writeUInt32BE(MAGIC, 0)
  buf.writeUInt32BE(seq >>> 0, 4)
  buf.writeBigUInt64BE(now(), 8)
  return buf
}

function parse (buf) {
  if (buf.length < HEADER || buf.readUInt32BE(0) !== MAGIC) return null
  return { seq: buf.readUInt32BE(4), sentNs: buf.readBigUInt64BE(8) }
}

function summary (values) {
  if (values.length === 0) return null
  const v = Float64Array.from(values).sort()
  const at = (q) => v[Math.min(v.length - 1, Math.max(0, Math.ceil(q * v.length) - 1))]
  const mean = v.reduce((a, b) => a + b, 0) / v.length
  const sd = Math.sqrt(v.reduce((a, b) => a + (b - mean) ** 2, 0) / v.length)
  const r = (x) => Math.round(x * 1000) / 1000
  return { n: v.length, min: r(v[0]), p50: r(at(0.5)), mean: r(mean), sd: r(sd), p99: r(at(0.99)), max: r(v[v.length - 1]) }
}

function socket () {
  const sock = dgram.createSocket({ type: 'udp4', recvBufferSize: 8 << 20, sendBufferSize: 8 << 20 })
  sock.on('error', (err) => { console.error(`udp-tool ${mode}: ${err.message}`); process.exit(1) })
  return sock
}

const ready = () => process.stdout.write('ready\n')

if (mode === 'echo') {
  const [addr, port] = args
  const sock = socket()
  sock.on('message', (msg, rinfo) => sock.send(msg, rinfo.port, rinfo.address))
  sock.bind(Number(port), addr, ready)
  process.on('SIGTERM', () => process.exit(0))
} else if (mode === 'rtt') {
  const [addr, port, count, intervalMs, size = '64'] = args
  const n = Number(count)
  const sock = socket()
  const rtts = []
  let sent = 0
  let maxSeq = -1
  let reordered = 0
  sock.on('message', (msg) => {
    const p = parse(msg)
    if (!p) return
    rtts.push(Number(now() - p.sentNs) / 1e6)
    if (p.seq < maxSeq) reordered++
    else maxSeq = p.seq
  })
  sock.bind(0, () => {
    ready()
    const timer = setInterval(() => {
      sock.send(packet(sent++, Number(size)), Number(port), addr)
      if (sent >= n) {
        clearInterval(timer)
        setTimeout(() => { // wait for the tail
          const received = rtts.length
          console.log(JSON.stringify({ sent, received, lossPct: Math.round((1 - received / sent) * 10000) / 100, reordered, rttMs: summary(rtts) }))
          process.exit(0)
        }, 1000)
      }
    }, Number(intervalMs))
  })
} else if (mode === 'sink') {
  const [addr, port, seconds] = args
  const sock = socket()
  const lat = []
  let received = 0; let bytes = 0; let maxSeq = -1; let reordered = 0; let first = 0n; let last = 0n
  const seen = new Set()
  let dup = 0
  sock.on('message', (msg) => {
    const p = parse(msg)
    if (!p) return
    const t = now()
    if (received === 0) first = t
    last = t
    received++
    bytes += msg.length
    if (seen.has(p.seq)) dup++
    seen.add(p.seq)
    if (p.seq < maxSeq) reordered++
    else maxSeq = p.seq
    lat.push(Number(t - p.sentNs) / 1e6)
  })
  const done = () => {
    const span = Number(last - first) / 1e9
    const expected = maxSeq + 1
    console.log(JSON.stringify({
      received, bytes, expected, lost: expected - seen.size, lossPct: expected > 0 ? Math.round((1 - seen.size / expected) * 10000) / 100 : 0,
      reordered, duplicates: dup, pps: span > 0 ? Math.round(received / span) : 0, mbit: span > 0 ? Math.round((bytes * 8) / span / 1e4) / 100 : 0,
      oneWayMs: summary(lat)
    }))
    process.exit(0)
  }
  sock.bind(Number(port), addr, () => { ready(); setTimeout(done, Number(seconds) * 1000) })
  process.on('SIGTERM', done)
} else if (mode === 'flood') {
  const [addr, port, pps, seconds, size = '1200'] = args
  const rate = Number(pps); const size_ = Number(size)
  const sock = socket()
  let sent = 0; let errors = 0
  sock.bind(0, () => {
    ready()
    const start = now()
    const endNs = BigInt(Math.round(Number(seconds) * 1e9))
    const tick = () => {
      const el = now() - start
      if (el >= endNs) {
        const secs = Number(el) / 1e9
        console.log(JSON.stringify({ sent, errors, pps: Math.round(sent / secs), mbit: Math.round((sent * size_ * 8) / secs / 1e4) / 100 }))
        setTimeout(() => process.exit(0), 50)
        return
      }
      const due = Math.min(Math.floor((Number(el) / 1e9) * rate), sent + 5000)
      while (sent < due) sock.send(packet(sent++, size_), Number(port), addr, (err) => { if (err) errors++ })
      setTimeout(tick, 1)
    }
    tick()
  })
} else {
  console.error('usage: node udp-tool.mjs echo|rtt|sink|flood ...  (see the head of this file)')
  process.exit(2)
}
