// arus-delay: the network lab's delay stage (see README.md beside it).
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>

#define MAX_RULES 256
#define MAX_PKT 65536

typedef struct { uint32_t net, mask; int64_t delay_ns, jitter_ns; double loss; } rule_t;
typedef struct { int64_t at; uint32_t len; uint8_t *buf; } pkt_t;

static rule_t rules[MAX_RULES];
static int nrules;
static pkt_t *heap;
static size_t heap_len, heap_cap = 65536;
static int64_t *last_release; // [(nrules+1)^2]: per-path order
static volatile sig_atomic_t stop_flag;
static uint64_t rng_state = 0x9e3779b97f4a7c15ULL;

static struct {
  uint64_t packets, bytes, lost, queue_drops, non_ipv4, write_errors, max_queue;
} st;
// Lateness histogram: 1 µs buckets to 10 ms, then one overflow bucket.
#define LATE_BUCKETS 10001
static uint64_t late_hist[LATE_BUCKETS];
static uint64_t late_n, late_max_us;

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static uint64_t rng(void) { // xorshift64*
  rng_state ^= rng_state >> 12; rng_state ^= rng_state << 25; rng_state ^= rng_state >> 27;
  return rng_state * 2685821657736338717ULL;
}
static double rng01(void) { return (double)(rng() >> 11) / 9007199254740992.0; }

static void on_signal(int sig) { (void)sig; stop_flag = 1; }

static void usage(const char *msg, const char *arg) {
  fprintf(stderr, "arus-delay: %s%s%s\nusage: arus-delay --tun <ifname> [--seed N] [--stats <file>] [--max-queue N] <cidr>=<oneway_ms>[:<jitter_ms>[:<loss_pct>]]...\n",
          msg, arg ? ": " : "", arg ? arg : "");
  exit(2);
}

static int parse_rule(const char *text, rule_t *r) {
  char buf[128];
  if (strlen(text) >= sizeof buf) return -1;
  strcpy(buf, text);
  char *eq = strchr(buf, '=');
  if (!eq) return -1;
  *eq = 0;
  char *slash = strchr(buf, '/');
  int bits = 32;
  if (slash) {
    *slash = 0;
    char *end;
    long b = strtol(slash + 1, &end, 10);
    if (*end || b < 0 || b > 32) return -1;
    bits = (int)b;
  }
  struct in_addr a;
  if (inet_pton(AF_INET, buf, &a) != 1) return -1;
  r->mask = bits == 0 ? 0 : htonl(~0U << (32 - bits));
  r->net = a.s_addr & r->mask;
  double v[3] = {0, 0, 0};
  char *p = eq + 1;
  for (int i = 0; i < 3 && *p; i++) {
    char *end;
    v[i] = strtod(p, &end);
    if (end == p || v[i] < 0) return -1;
    p = end;
    if (*p == ':') p++;
    else if (*p) return -1;
  }
  if (v[0] > 60000 || v[1] > 60000 || v[2] > 100) return -1;
  r->delay_ns = (int64_t)(v[0] * 1e6);
  r->jitter_ns = (int64_t)(v[1] * 1e6);
  r->loss = v[2] / 100.0;
  return 0;
}

static int match(uint32_t addr) {
  for (int i = 0; i < nrules; i++) if ((addr & rules[i].mask) == rules[i].net) return i;
  return -1;
}

static void heap_push(pkt_t p) {
  size_t i = heap_len++;
  while (i > 0) {
    size_t parent = (i - 1) / 2;
    if (heap[parent].at <= p.at) break;
    heap[i] = heap[parent];
    i = parent;
  }
  heap[i] = p;
}

static pkt_t heap_pop(void) {
  pkt_t top = heap[0], last = heap[--heap_len];
  size_t i = 0;
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    int64_t mv = last.at;
    if (l < heap_len && heap[l].at < mv) { m = l; mv = heap[l].at; }
    if (r < heap_len && heap[r].at < mv) m = r;
    if (m == i) break;
    heap[i] = heap[m];
    i = m;
  }
  if (heap_len > 0) heap[i] = last;
  return top;
}

static void note_late(int64_t late_ns) {
  uint64_t us = late_ns > 0 ? (uint64_t)(late_ns / 1000) : 0;
  if (us > late_max_us) late_max_us = us;
  late_hist[us < LATE_BUCKETS - 1 ? us : LATE_BUCKETS - 1]++;
  late_n++;
}

static uint64_t late_pct(double q) {
  if (late_n == 0) return 0;
  uint64_t want = (uint64_t)(q * (double)late_n), seen = 0;
  for (int i = 0; i < LATE_BUCKETS; i++) { seen += late_hist[i]; if (seen > want) return (uint64_t)i; }
  return late_max_us;
}

static void write_stats(const char *file) {
  if (!file) return;
  char tmp[4096];
  if (snprintf(tmp, sizeof tmp, "%s.tmp", file) >= (int)sizeof tmp) return;
  FILE *f = fopen(tmp, "w");
  if (!f) return;
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  fprintf(f, "{\"packets\":%llu,\"bytes\":%llu,\"lost\":%llu,\"queueDrops\":%llu,\"nonIpv4\":%llu,\"writeErrors\":%llu,\"maxQueue\":%llu,"
             "\"lateP50Us\":%llu,\"lateP99Us\":%llu,\"lateMaxUs\":%llu,\"cpuUserMs\":%llu,\"cpuSysMs\":%llu}\n",
          (unsigned long long)st.packets, (unsigned long long)st.bytes, (unsigned long long)st.lost,
          (unsigned long long)st.queue_drops, (unsigned long long)st.non_ipv4, (unsigned long long)st.write_errors,
          (unsigned long long)st.max_queue, (unsigned long long)late_pct(0.5), (unsigned long long)late_pct(0.99),
          (unsigned long long)late_max_us,
          (unsigned long long)(ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000),
          (unsigned long long)(ru.ru_stime.tv_sec * 1000 + ru.ru_stime.tv_usec / 1000));
  if (fclose(f) == 0) rename(tmp, file);
}

int main(int argc, char **argv) {
  const char *tun = NULL, *stats = NULL;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--tun")) { if (++i >= argc) usage("--tun needs a value", NULL); tun = argv[i]; }
    else if (!strcmp(argv[i], "--stats")) { if (++i >= argc) usage("--stats needs a value", NULL); stats = argv[i]; }
    else if (!strcmp(argv[i], "--seed")) { if (++i >= argc) usage("--seed needs a value", NULL); rng_state = strtoull(argv[i], NULL, 10) | 1; }
    else if (!strcmp(argv[i], "--max-queue")) {
      if (++i >= argc) usage("--max-queue needs a value", NULL);
      long q = strtol(argv[i], NULL, 10);
      if (q < 16 || q > 1 << 22) usage("--max-queue must be 16..4194304", argv[i]);
      heap_cap = (size_t)q;
    } else if (!strncmp(argv[i], "--", 2)) usage("unknown option", argv[i]);
    else {
      if (nrules == MAX_RULES) usage("too many rules", argv[i]);
      if (parse_rule(argv[i], &rules[nrules]) != 0) usage("bad rule (cidr=oneway_ms[:jitter_ms[:loss_pct]])", argv[i]);
      nrules++;
    }
  }
  if (!tun || strlen(tun) >= IFNAMSIZ) usage("--tun <ifname> is required", tun);
  heap = calloc(heap_cap, sizeof *heap);
  last_release = calloc((size_t)(nrules + 1) * (nrules + 1), sizeof *last_release);
  if (!heap || !last_release) { fprintf(stderr, "arus-delay: out of memory\n"); return 1; }

  int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) { perror("arus-delay: open /dev/net/tun"); return 1; }
  struct ifreq ifr;
  memset(&ifr, 0, sizeof ifr);
  ifr.ifr_flags = IFF_TUN | IFF_NO_PI;
  strncpy(ifr.ifr_name, tun, IFNAMSIZ - 1);
  if (ioctl(fd, TUNSETIFF, &ifr) < 0) { perror("arus-delay: TUNSETIFF"); return 1; }

  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigaction(SIGTERM, &sa, NULL);
  sigaction(SIGINT, &sa, NULL);
  signal(SIGPIPE, SIG_IGN);
  printf("ready\n");
  fflush(stdout);

  uint8_t *spare = malloc(MAX_PKT);
  int64_t next_stats = now_ns() + 1000000000LL;
  while (!stop_flag) {
    int64_t t = now_ns();
    // Release every due packet.
    while (heap_len > 0 && heap[0].at <= t) {
      pkt_t p = heap_pop();
      note_late(t - p.at);
      if (write(fd, p.buf, p.len) < 0 && errno != EAGAIN && errno != EINTR) st.write_errors++;
      free(p.buf);
      t = now_ns();
    }
    if (t >= next_stats) { write_stats(stats); next_stats = t + 1000000000LL; }
    int64_t wait = next_stats - t;
    if (heap_len > 0 && heap[0].at - t < wait) wait = heap[0].at - t;
    if (wait < 0) wait = 0;
    struct timespec ts = { .tv_sec = wait / 1000000000LL, .tv_nsec = wait % 1000000000LL };
    struct pollfd pfd = { .fd = fd, .events = POLLIN };
    int n = ppoll(&pfd, 1, &ts, NULL);
    if (n < 0) { if (errno == EINTR) continue; perror("arus-delay: ppoll"); break; }
    if (n == 0 || !(pfd.revents & POLLIN)) continue;
    // Read what is waiting (bounded per turn, so releases are not starved).
    for (int k = 0; k < 256; k++) {
      ssize_t len = read(fd, spare, MAX_PKT);
      if (len < 0) break;
      if (len < 20 || (spare[0] >> 4) != 4) { st.non_ipv4++; continue; }
      uint32_t src, dst;
      memcpy(&src, spare + 12, 4);
      memcpy(&dst, spare + 16, 4);
      int rs = match(src), rd = match(dst);
      st.packets++;
      st.bytes += (uint64_t)len;
      double keep = (rs >= 0 ? 1 - rules[rs].loss : 1) * (rd >= 0 ? 1 - rules[rd].loss : 1);
      if (keep < 1 && rng01() >= keep) { st.lost++; continue; }
      if (heap_len >= heap_cap) { st.queue_drops++; continue; }
      int64_t delay = (rs >= 0 ? rules[rs].delay_ns : 0) + (rd >= 0 ? rules[rd].delay_ns : 0);
      int64_t jitter = (rs >= 0 ? rules[rs].jitter_ns : 0) + (rd >= 0 ? rules[rd].jitter_ns : 0);
      if (jitter > 0) delay += (int64_t)(rng01() * (double)jitter);
      int64_t at = now_ns() + delay;
      int64_t *last = &last_release[(size_t)(rs + 1) * (nrules + 1) + (size_t)(rd + 1)];
      if (at < *last) at = *last; // never reorder a path
      *last = at;
      uint8_t *buf = malloc((size_t)len);
      if (!buf) { st.queue_drops++; continue; }
      memcpy(buf, spare, (size_t)len);
      heap_push((pkt_t){ .at = at, .len = (uint32_t)len, .buf = buf });
      if (heap_len > st.max_queue) st.max_queue = heap_len;
    }
  }
  write_stats(stats);
  return 0;
}
