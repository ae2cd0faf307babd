// arus-delay: the network lab's delay stage (see README.md beside it).
//
// The kernel of the lab machine has no netem, so round-trip delay, jitter and loss are
// applied here, in userspace: every packet the core router forwards is routed into a tun
// device; this program reads it, decides its fate from its source and destination
// addresses, holds it in a min-heap by release time, and writes it back into the same tun
// device when it is due (the kernel then routes it on as if it had just arrived).
//
//   arus-delay --tun <ifname> [--seed N] [--stats <file>] [--max-queue N] [--rt PRIO] <rule>...
//   rule := <cidr>=<oneway_ms>[:<jitter_ms>[:<loss_pct>]]   e.g. 100.64.1.0/24=40:5:0.5
//
// Model (per packet; "src rule" / "dst rule" = the first rule, in command-line order,
// whose prefix holds the packet's source / destination address; no match = all zeros):
//   delay  = oneway(src) + oneway(dst) + U, U uniform in [0, jitter(src) + jitter(dst)] ms
//   loss   = dropped with probability 1 - (1 - loss(src)) * (1 - loss(dst))
//   order  = per path (pair of src rule, dst rule): release = max(arrival + delay,
//            previous release on that path), ties broken by arrival order. Jitter changes
//            latency but never reorders a flow (a fast flow's latency is therefore biased
//            towards the top of the jitter range: see README.md).
// Packets that are not IPv4 (or too short/odd to carry an IPv4 header) are dropped and
// counted as nonIpv4. Above --max-queue held packets, new ones are dropped (tail drop).
//
// Build: gcc -O2 -o arus-delay arus-delay.c   (C11 + POSIX/Linux, libc only, no -lm; the
// stats thread needs no -pthread with glibc >= 2.34 or musl, add it for an older glibc)
// Exit codes: 0 after SIGTERM/SIGINT/SIGHUP (final stats written), 2 on a bad argument,
// 1 on a runtime failure (no such tun device, permission, tun device removed, ...).
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <net/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define MAX_RULES 1024
#define MAX_MS 60000.0            // one-way delay and jitter bound per rule (60 s)
#define MAX_QUEUE_LIMIT (1 << 24) // --max-queue upper bound
#define DEFAULT_MAX_QUEUE 65536
#define READ_BATCH 64             // reads per loop turn, so due releases are not starved
#define STATS_EVERY_NS 500000000LL
#define PKT_BUF 65536             // an IPv4 packet is at most 65535 bytes

typedef struct {
  uint32_t net, mask; // host byte order
  int64_t delay_ns, jitter_ns;
  double loss;        // probability 0..1
} rule_t;

typedef struct {
  int64_t at;    // release time, CLOCK_MONOTONIC ns
  uint64_t seq;  // arrival order: the tie-break that keeps equal release times in order
  uint8_t *buf;
  uint32_t len;
} pkt_t;

static rule_t rules[MAX_RULES];
static int nrules;
static int64_t *last_release; // [(nrules + 1)^2]: last release time per (src rule, dst rule)

static pkt_t *heap;
static size_t heap_len, heap_cap, max_queue = DEFAULT_MAX_QUEUE;
static uint64_t next_seq;

static volatile sig_atomic_t stop_flag;
static uint64_t rng_state;

static struct {
  uint64_t packets, bytes, lost, queue_drops, non_ipv4, sent, write_errors, read_errors, max_queue;
} st;
static uint64_t seed_used;
static int64_t start_ns;

// ---- lateness histogram --------------------------------------------------------------
// Lateness = time of the write() minus the scheduled release time, in µs, over every
// packet released since start. Kept in a log-linear histogram (HDR-style, fixed size,
// no sampling): exact 1 µs buckets below 1024 µs, then 64 buckets per power of two
// (relative error < 1.6 %) up to 2^40 µs. Percentiles are nearest-rank and report the
// bucket's lower bound; the maximum is exact.
#define LIN_BITS 10
#define SUB_BITS 6
#define LATE_BUCKETS ((1 << LIN_BITS) + (40 - LIN_BITS) * (1 << SUB_BITS))
static uint64_t late_hist[LATE_BUCKETS];
static uint64_t late_n, late_max_us;

static int late_bucket(uint64_t us) {
  if (us < (1u << LIN_BITS)) return (int)us;
  int e = 63 - __builtin_clzll(us); // >= LIN_BITS
  if (e >= 40) return LATE_BUCKETS - 1;
  int sub = (int)((us >> (e - SUB_BITS)) & ((1u << SUB_BITS) - 1));
  return (1 << LIN_BITS) + (e - LIN_BITS) * (1 << SUB_BITS) + sub;
}

static uint64_t bucket_floor(int b) {
  if (b < (1 << LIN_BITS)) return (uint64_t)b;
  int k = b - (1 << LIN_BITS), e = LIN_BITS + k / (1 << SUB_BITS), sub = k % (1 << SUB_BITS);
  return ((uint64_t)1 << e) + ((uint64_t)sub << (e - SUB_BITS));
}

static void note_late(int64_t late_ns) {
  uint64_t us = late_ns > 0 ? (uint64_t)late_ns / 1000 : 0;
  if (us > late_max_us) late_max_us = us;
  late_hist[late_bucket(us)]++;
  late_n++;
}

static uint64_t late_pct(double q) {
  if (late_n == 0) return 0;
  double want = q * (double)late_n; // nearest rank: ceil(q * n), at least 1
  uint64_t rank = (uint64_t)want, seen = 0;
  if ((double)rank < want || rank < 1) rank++;
  for (int b = 0; b < LATE_BUCKETS; b++) {
    seen += late_hist[b];
    if (seen >= rank) {
      uint64_t v = bucket_floor(b);
      return v < late_max_us ? v : late_max_us;
    }
  }
  return late_max_us;
}

// ---- small helpers ---------------------------------------------------------------------
static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

// splitmix64: tiny, fast, good enough for loss and jitter draws.
static uint64_t rng(void) {
  uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}
static double rng01(void) { return (double)(rng() >> 11) * (1.0 / 9007199254740992.0); } // [0, 1)

static void on_signal(int sig) { (void)sig; stop_flag = 1; }

static const char USAGE[] =
  "usage: arus-delay --tun <ifname> [--seed N] [--stats <file>] [--max-queue N] [--rt PRIO] <rule> [<rule>...]\n"
  "  rule := <cidr>=<oneway_ms>[:<jitter_ms>[:<loss_pct>]]   e.g. 100.64.1.0/24=40:5:0.5\n"
  "  --seed N       random seed for loss and jitter (default: from the clock; reported in the stats)\n"
  "  --stats FILE   one-line JSON stats, rewritten (atomically) every 0.5 s and at exit\n"
  "  --max-queue N  packets held at most (default 65536); more are dropped (queueDrops)\n"
  "  --rt PRIO      run SCHED_FIFO at priority 1..99 (on a busy machine: keeps releases on time)\n"
  "  delay = oneway(src rule) + oneway(dst rule) + uniform[0, jitter(src) + jitter(dst)];\n"
  "  loss = 1 - (1 - loss(src)) * (1 - loss(dst)); first matching rule wins; no match = 0.\n";

static _Noreturn void bad_arg(const char *arg, const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "arus-delay: bad argument '%s': ", arg ? arg : "");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fprintf(stderr, "\n%s", USAGE);
  exit(2);
}

static _Noreturn void fail(const char *fmt, ...) {
  va_list ap;
  fprintf(stderr, "arus-delay: ");
  va_start(ap, fmt);
  vfprintf(stderr, fmt, ap);
  va_end(ap);
  fputc('\n', stderr);
  exit(1);
}

// A non-negative decimal number: digits with an optional fraction and exponent ("12.5",
// "0.25", "1e-7" as JavaScript's String() may print); no sign, inf/nan or hex.
static int parse_num(const char *s, size_t n, double lo, double hi, double *out) {
  char tmp[64], *end;
  if (n == 0 || n >= sizeof tmp || !((s[0] >= '0' && s[0] <= '9') || s[0] == '.')) return -1;
  for (size_t i = 0; i < n; i++)
    if (!strchr("0123456789.eE+-", s[i])) return -1;
  memcpy(tmp, s, n);
  tmp[n] = 0;
  errno = 0;
  double v = strtod(tmp, &end);
  if (end != tmp + n || errno == ERANGE || !(v >= lo && v <= hi)) return -1;
  *out = v;
  return 0;
}

static int parse_uint(const char *s, uint64_t lo, uint64_t hi, uint64_t *out) {
  if (!*s) return -1;
  for (const char *p = s; *p; p++) if (*p < '0' || *p > '9') return -1;
  errno = 0;
  unsigned long long v = strtoull(s, NULL, 10);
  if (errno || v < lo || v > hi) return -1;
  *out = v;
  return 0;
}

static void parse_rule(const char *text, rule_t *r) {
  const char *eq = strchr(text, '=');
  if (!eq) bad_arg(text, "a rule is <cidr>=<oneway_ms>[:<jitter_ms>[:<loss_pct>]] (no '=')");
  char addr[32];
  size_t alen = (size_t)(eq - text);
  if (alen == 0 || alen >= sizeof addr) bad_arg(text, "missing or overlong <cidr> before '='");
  memcpy(addr, text, alen);
  addr[alen] = 0;
  int bits = 32;
  char *slash = strchr(addr, '/');
  if (slash) {
    uint64_t b;
    *slash = 0;
    if (parse_uint(slash + 1, 0, 32, &b) != 0 || strlen(slash + 1) > 2)
      bad_arg(text, "prefix length must be 0..32");
    bits = (int)b;
  }
  struct in_addr a;
  if (inet_pton(AF_INET, addr, &a) != 1) bad_arg(text, "'%s' is not a dotted-quad IPv4 address", addr);
  r->mask = bits == 0 ? 0 : ~0u << (32 - bits);
  r->net = ntohl(a.s_addr);
  if (r->net & ~r->mask) {
    struct in_addr n = { .s_addr = htonl(r->net & r->mask) };
    char nb[INET_ADDRSTRLEN];
    inet_ntop(AF_INET, &n, nb, sizeof nb);
    bad_arg(text, "host bits set in the prefix (did you mean %s/%d?)", nb, bits);
  }
  // <oneway_ms>[:<jitter_ms>[:<loss_pct>]]
  static const char *const names[3] = { "oneway_ms", "jitter_ms", "loss_pct" };
  static const double his[3] = { MAX_MS, MAX_MS, 100.0 };
  double v[3] = { 0, 0, 0 };
  const char *p = eq + 1;
  for (int i = 0;; i++) {
    if (i == 3) bad_arg(text, "too many ':' fields (at most oneway_ms:jitter_ms:loss_pct)");
    const char *end = strchr(p, ':');
    size_t n = end ? (size_t)(end - p) : strlen(p);
    if (parse_num(p, n, 0, his[i], &v[i]) != 0)
      bad_arg(text, "%s must be a decimal number in 0..%g", names[i], his[i]);
    if (!end) break;
    p = end + 1;
  }
  r->delay_ns = (int64_t)(v[0] * 1e6 + 0.5); // ms → ns, rounded (values are >= 0)
  r->jitter_ns = (int64_t)(v[1] * 1e6 + 0.5);
  r->loss = v[2] / 100.0;
}

static int match(uint32_t addr) {
  for (int i = 0; i < nrules; i++) if ((addr & rules[i].mask) == rules[i].net) return i;
  return -1;
}

// ---- heap of held packets, ordered by (release time, arrival order) ---------------------
static int pkt_before(const pkt_t *a, const pkt_t *b) {
  return a->at < b->at || (a->at == b->at && a->seq < b->seq);
}

static int heap_push(pkt_t p) {
  if (heap_len == heap_cap) {
    size_t cap = heap_cap ? heap_cap * 2 : 1024;
    if (cap > max_queue) cap = max_queue;
    pkt_t *h = realloc(heap, cap * sizeof *h);
    if (!h) return -1;
    heap = h;
    heap_cap = cap;
  }
  size_t i = heap_len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (!pkt_before(&p, &heap[parent])) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = p;
  return 0;
}

static void heap_pop(void) {
  pkt_t last = heap[--heap_len];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    const pkt_t *mv = &last;
    if (l < heap_len && pkt_before(&heap[l], mv)) { m = l; mv = &heap[l]; }
    if (r < heap_len && pkt_before(&heap[r], mv)) m = r;
    if (m == i) break;
    heap[i] = heap[m];
    i = m;
  }
  if (heap_len > 0) heap[i] = last;
}

// ---- stats -----------------------------------------------------------------------------
// The file is written by a helper thread: open/write/rename on a journaling file system
// can block for tens of milliseconds (measured here: ext4, up to 100 ms), which must not
// stall the packet loop. The loop only hands over a snapshot (a short mutex hold).
typedef struct {
  uint64_t packets, bytes, lost, queue_drops, non_ipv4, max_queue, sent, write_errors, read_errors;
  uint64_t p50, p99, p999, late_max, queue, seed;
  int64_t uptime_ms;
} snap_t;

static struct {
  pthread_mutex_t mu;
  pthread_cond_t cv;
  snap_t snap;
  uint64_t gen; // bumped per snapshot handed over
  int final;    // the last one: write it and end
} sw = { .mu = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER };
static const char *stats_file;

static void take_snapshot(snap_t *s) {
  *s = (snap_t){
    .packets = st.packets, .bytes = st.bytes, .lost = st.lost, .queue_drops = st.queue_drops,
    .non_ipv4 = st.non_ipv4, .max_queue = st.max_queue, .sent = st.sent, .write_errors = st.write_errors,
    .read_errors = st.read_errors, .p50 = late_pct(0.50), .p99 = late_pct(0.99), .p999 = late_pct(0.999),
    .late_max = late_max_us, .queue = heap_len, .seed = seed_used, .uptime_ms = (now_ns() - start_ns) / 1000000,
  };
}

static int write_snapshot(const snap_t *s) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru); // all threads
  char json[1024], tmp[4200];
  int n = snprintf(json, sizeof json,
    "{\"packets\":%" PRIu64 ",\"bytes\":%" PRIu64 ",\"lost\":%" PRIu64 ",\"queueDrops\":%" PRIu64
    ",\"nonIpv4\":%" PRIu64 ",\"maxQueue\":%" PRIu64 ",\"lateP50Us\":%" PRIu64 ",\"lateP99Us\":%" PRIu64
    ",\"lateMaxUs\":%" PRIu64 ",\"cpuUserMs\":%" PRIu64 ",\"cpuSysMs\":%" PRIu64
    ",\"sent\":%" PRIu64 ",\"queue\":%" PRIu64 ",\"writeErrors\":%" PRIu64 ",\"readErrors\":%" PRIu64
    ",\"lateP999Us\":%" PRIu64 ",\"uptimeMs\":%" PRId64 ",\"seed\":%" PRIu64 "}\n",
    s->packets, s->bytes, s->lost, s->queue_drops, s->non_ipv4, s->max_queue, s->p50, s->p99, s->late_max,
    (uint64_t)ru.ru_utime.tv_sec * 1000 + (uint64_t)ru.ru_utime.tv_usec / 1000,
    (uint64_t)ru.ru_stime.tv_sec * 1000 + (uint64_t)ru.ru_stime.tv_usec / 1000,
    s->sent, s->queue, s->write_errors, s->read_errors, s->p999, s->uptime_ms, s->seed);
  if (n < 0 || (size_t)n >= sizeof json) return -1;
  snprintf(tmp, sizeof tmp, "%s.tmp.%ld", stats_file, (long)getpid());
  int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  if (fd < 0) return -1;
  int e = 0;
  ssize_t w = write(fd, json, (size_t)n);
  if (w != n) e = w < 0 ? errno : EIO;
  if (close(fd) != 0 && !e) e = errno;
  if (!e && rename(tmp, stats_file) != 0) e = errno;
  if (e) {
    unlink(tmp);
    errno = e;
    return -1;
  }
  return 0;
}

static void *stats_writer(void *arg) {
  (void)arg;
  uint64_t done = 0;
  int warned = 0;
  pthread_mutex_lock(&sw.mu);
  for (;;) {
    while (sw.gen == done) pthread_cond_wait(&sw.cv, &sw.mu);
    snap_t s = sw.snap;
    int final = sw.final;
    done = sw.gen;
    pthread_mutex_unlock(&sw.mu);
    if (write_snapshot(&s) != 0 && (final || !warned++))
      fprintf(stderr, "arus-delay: cannot write %sstats to '%s': %s%s\n", final ? "final " : "", stats_file,
              strerror(errno), final ? "" : " (will keep trying)");
    if (final) return NULL;
    pthread_mutex_lock(&sw.mu);
  }
}

static void post_stats(int final) {
  snap_t s;
  take_snapshot(&s);
  pthread_mutex_lock(&sw.mu);
  sw.snap = s;
  sw.final = final;
  sw.gen++;
  pthread_cond_signal(&sw.cv);
  pthread_mutex_unlock(&sw.mu);
}

// ---- main ------------------------------------------------------------------------------
int main(int argc, char **argv) {
  const char *tun = NULL, *stats = NULL;
  int have_seed = 0, have_queue = 0, rt_prio = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--help") || !strcmp(a, "-h")) { fputs(USAGE, stdout); return 0; }
    int is_opt = !strcmp(a, "--tun") || !strcmp(a, "--stats") || !strcmp(a, "--seed") || !strcmp(a, "--max-queue") ||
                 !strcmp(a, "--rt");
    if (is_opt) {
      if (i + 1 >= argc) bad_arg(a, "needs a value");
      const char *v = argv[++i];
      if (!strcmp(a, "--tun")) {
        if (tun) bad_arg(a, "given twice");
        if (!*v || strlen(v) >= IFNAMSIZ || strchr(v, '/') || strchr(v, ' '))
          bad_arg(v, "--tun needs an interface name of 1..%d characters", IFNAMSIZ - 1);
        tun = v;
      } else if (!strcmp(a, "--stats")) {
        if (stats) bad_arg(a, "given twice");
        if (!*v || strlen(v) > 4000) bad_arg(v, "--stats needs a file path");
        stats = v;
      } else if (!strcmp(a, "--seed")) {
        if (have_seed++) bad_arg(a, "given twice");
        if (parse_uint(v, 0, UINT64_MAX, &seed_used) != 0) bad_arg(v, "--seed needs a non-negative integer");
      } else if (!strcmp(a, "--rt")) {
        uint64_t pr;
        if (rt_prio) bad_arg(a, "given twice");
        if (parse_uint(v, 1, 99, &pr) != 0) bad_arg(v, "--rt needs a SCHED_FIFO priority in 1..99");
        rt_prio = (int)pr;
      } else {
        uint64_t q;
        if (have_queue++) bad_arg(a, "given twice");
        if (parse_uint(v, 1, MAX_QUEUE_LIMIT, &q) != 0) bad_arg(v, "--max-queue needs an integer in 1..%d", MAX_QUEUE_LIMIT);
        max_queue = (size_t)q;
      }
    } else if (a[0] == '-') {
      bad_arg(a, "unknown option");
    } else {
      if (nrules == MAX_RULES) bad_arg(a, "too many rules (at most %d)", MAX_RULES);
      parse_rule(a, &rules[nrules++]);
    }
  }
  if (!tun) bad_arg("--tun", "--tun <ifname> is required");
  if (!have_seed) seed_used = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
  rng_state = seed_used;
  start_ns = now_ns();

  last_release = calloc((size_t)(nrules + 1) * (size_t)(nrules + 1), sizeof *last_release);
  uint8_t *rbuf = malloc(PKT_BUF);
  if (!last_release || !rbuf) fail("out of memory");

  stats_file = stats;
  if (stats) { // the first write is synchronous: a bad path is an argument error
    snap_t s;
    take_snapshot(&s);
    if (write_snapshot(&s) != 0) bad_arg(stats, "--stats: cannot write '%s' (%s)", stats, strerror(errno));
  }

  // Attach to the existing tun device. TUNSETIFF would create a missing one: refuse a
  // missing name up front, and check after attaching that the device is persistent, i.e.
  // was made beforehand by `ip tuntap add` (closes the race with a concurrent delete).
  if (if_nametoindex(tun) == 0)
    fail("no tun device '%s' in this network namespace (create it first: ip tuntap add dev %s mode tun)", tun, tun);
  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail("open /dev/net/tun: %s", strerror(errno));
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  memcpy(ifr.ifr_name, tun, strlen(tun));
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
    int e = errno;
    fail("attach to tun device '%s': %s%s", tun, strerror(e),
         e == EBUSY ? " (another process is attached to it)"
         : e == EINVAL ? " (is it a tun device made with `ip tuntap add dev <name> mode tun`?)"
         : e == EPERM ? " (needs CAP_NET_ADMIN)" : "");
  }
  memset(&ifr, 0, sizeof ifr);
  if (ioctl(fd, TUNGETIFF, &ifr) < 0) fail("TUNGETIFF '%s': %s", tun, strerror(errno));
  if (!(ifr.ifr_flags & IFF_PERSIST))
    fail("no tun device '%s' in this network namespace (create it first: ip tuntap add dev %s mode tun)", tun, tun);

  // Signals: SIGTERM/SIGINT/SIGHUP stop the loop. They are blocked except inside ppoll,
  // so they can only land there (no lost wake-up, no EINTR anywhere else).
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  sigaction(SIGHUP, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  sigset_t block, waitmask;
  sigemptyset(&block);
  sigaddset(&block, SIGTERM);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGHUP);
  sigprocmask(SIG_BLOCK, &block, &waitmask);
  sigdelset(&waitmask, SIGTERM);
  sigdelset(&waitmask, SIGINT);
  sigdelset(&waitmask, SIGHUP);

  if (rt_prio) {
    struct sched_param sp = { .sched_priority = rt_prio };
    if (sched_setscheduler(0, SCHED_FIFO, &sp) != 0)
      fprintf(stderr, "arus-delay: --rt %d: cannot switch to SCHED_FIFO (%s); running at normal priority\n", rt_prio, strerror(errno));
  }
  pthread_t writer;
  if (stats) { // after the signal mask is set: the thread inherits it, signals go to ppoll
    int e = pthread_create(&writer, NULL, stats_writer, NULL);
    if (e) fail("cannot start the stats thread: %s", strerror(e));
  }

  // Timer slack 1 ns: ppoll's hrtimer fires on time instead of up to 50 µs late.
  prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);

  fputs("ready\n", stdout);
  fflush(stdout);

  int rc = 0, want_out = 0;
  int64_t next_stats = now_ns() + STATS_EVERY_NS;
  while (!stop_flag) {
    // Release every due packet.
    int64_t t = now_ns();
    want_out = 0;
    while (heap_len > 0 && heap[0].at <= t) {
      pkt_t *p = &heap[0];
      ssize_t w = write(fd, p->buf, p->len);
      if (w < 0 && errno == EINTR) continue;
      if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { want_out = 1; break; } // retry when writable
      note_late(t - p->at);
      if (w < 0) st.write_errors++;
      else st.sent++;
      free(p->buf);
      heap_pop();
      t = now_ns();
    }
    if (t >= next_stats) {
      if (stats) post_stats(0);
      next_stats += STATS_EVERY_NS;
      if (next_stats <= t) next_stats = t + STATS_EVERY_NS;
    }

    // Wait for a packet, the next release, or the next stats write.
    int64_t wait = next_stats - t;
    if (heap_len > 0 && !want_out && heap[0].at - t < wait) wait = heap[0].at - t;
    if (wait < 0) wait = 0;
    struct timespec ts = { .tv_sec = wait / 1000000000LL, .tv_nsec = wait % 1000000000LL };
    struct pollfd pfd = { .fd = fd, .events = POLLIN | (want_out ? POLLOUT : 0) };
    int n = ppoll(&pfd, 1, &ts, &waitmask);
    if (n < 0) {
      if (errno == EINTR || errno == ENOMEM) continue;
      fprintf(stderr, "arus-delay: ppoll: %s\n", strerror(errno));
      rc = 1;
      break;
    }
    if (n == 0) continue;
    if (pfd.revents & (POLLERR | POLLNVAL)) {
      fprintf(stderr, "arus-delay: tun device '%s' went away\n", tun);
      rc = 1;
      break;
    }
    if (!(pfd.revents & POLLIN)) continue;

    // Read what is waiting (bounded per turn, so releases are not starved).
    for (int k = 0; k < READ_BATCH; k++) {
      ssize_t len = read(fd, rbuf, PKT_BUF);
      if (len < 0) {
        if (errno == EAGAIN || errno == EWOULDBLOCK) break;
        if (errno == EINTR) continue;
        if (errno == EBADFD || errno == ENODEV) {
          fprintf(stderr, "arus-delay: tun device '%s' went away (%s)\n", tun, strerror(errno));
          stop_flag = 1;
          rc = 1;
          break;
        }
        st.read_errors++;
        break;
      }
      int64_t arrival = now_ns();
      size_t ihl = len >= 1 ? (size_t)(rbuf[0] & 0x0f) * 4 : 0;
      if (len < 20 || (rbuf[0] >> 4) != 4 || ihl < 20 || ihl > (size_t)len) { st.non_ipv4++; continue; }
      uint32_t src = ((uint32_t)rbuf[12] << 24) | ((uint32_t)rbuf[13] << 16) | ((uint32_t)rbuf[14] << 8) | rbuf[15];
      uint32_t dst = ((uint32_t)rbuf[16] << 24) | ((uint32_t)rbuf[17] << 16) | ((uint32_t)rbuf[18] << 8) | rbuf[19];
      int rs = match(src), rd = match(dst);
      st.packets++;
      st.bytes += (uint64_t)len;
      const rule_t *s = rs >= 0 ? &rules[rs] : NULL, *d = rd >= 0 ? &rules[rd] : NULL;
      double keep = (s ? 1 - s->loss : 1) * (d ? 1 - d->loss : 1);
      if (keep < 1 && rng01() >= keep) { st.lost++; continue; }
      if (heap_len >= max_queue) { st.queue_drops++; continue; }
      int64_t delay = (s ? s->delay_ns : 0) + (d ? d->delay_ns : 0);
      int64_t jitter = (s ? s->jitter_ns : 0) + (d ? d->jitter_ns : 0);
      if (jitter > 0) delay += (int64_t)(rng01() * (double)(jitter + 1)); // 0..jitter ns
      int64_t at = arrival + delay;
      int64_t *last = &last_release[(size_t)(rs + 1) * (size_t)(nrules + 1) + (size_t)(rd + 1)];
      if (at < *last) at = *last; // never overtake an earlier packet of the same path
      *last = at;
      uint8_t *buf = malloc((size_t)len);
      if (buf) memcpy(buf, rbuf, (size_t)len);
      if (!buf || heap_push((pkt_t){ .at = at, .seq = next_seq++, .buf = buf, .len = (uint32_t)len }) != 0) {
        free(buf); // out of memory: counted as a queue drop
        st.queue_drops++;
        continue;
      }
      if (heap_len > st.max_queue) st.max_queue = heap_len;
    }
  }
  if (stats) {
    post_stats(1);
    pthread_join(writer, NULL);
  }
  while (heap_len > 0) { free(heap[0].buf); heap_pop(); }
  free(heap);
  free(last_release);
  free(rbuf);
  close(fd);
  return rc;
}
