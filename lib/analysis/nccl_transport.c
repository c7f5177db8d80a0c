#include "nccl_transport.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "store/store_iter.h"

static const char *const TRANSPORT_NAMES[GW_NCCL_NTRANSPORTS] = {
    [GW_NCCL_NVLS] = "NVLS",
    [GW_NCCL_P2P_CUMEM] = "P2P/CUMEM",
    [GW_NCCL_P2P_IPC] = "P2P/IPC",
    [GW_NCCL_P2P_DIRECT] = "P2P/direct",
    [GW_NCCL_P2P_OTHER] = "P2P",
    [GW_NCCL_COLLNET] = "CollNet",
    [GW_NCCL_NET_IB_GDR] = "NET/IB+GDR",
    [GW_NCCL_SHM] = "SHM",
    [GW_NCCL_NET_IB] = "NET/IB",
    [GW_NCCL_NET_OTHER] = "NET/other",
    [GW_NCCL_NET_SOCKET] = "NET/Socket",
    [GW_NCCL_UNKNOWN] = "unknown",
};

const char *gw_nccl_transport_name(enum gw_nccl_transport t) {
  return (unsigned)t < GW_NCCL_NTRANSPORTS ? TRANSPORT_NAMES[t] : "unknown";
}

int gw_nccl_transport_is_slow(enum gw_nccl_transport t) {
  return t == GW_NCCL_SHM || t == GW_NCCL_NET_IB || t == GW_NCCL_NET_SOCKET;
}

static int starts(const char *s, const char *prefix) {
  return strncmp(s, prefix, strlen(prefix)) == 0;
}

enum gw_nccl_transport gw_nccl_classify_via(const char *via) {
  if (!via)
    return GW_NCCL_UNKNOWN;
  if (starts(via, "P2P/CUMEM"))
    return GW_NCCL_P2P_CUMEM;
  if (starts(via, "P2P/IPC"))
    return GW_NCCL_P2P_IPC;
  if (starts(via, "P2P/direct"))
    return GW_NCCL_P2P_DIRECT;
  if (starts(via, "P2P"))
    return GW_NCCL_P2P_OTHER;
  if (starts(via, "SHM"))
    return GW_NCCL_SHM;
  if (starts(via, "NVLS"))
    return GW_NCCL_NVLS;
  if (starts(via, "COLLNET") || starts(via, "CollNet"))
    return GW_NCCL_COLLNET;
  int gdr = strstr(via, "GDRDMA") != NULL;
  if (starts(via, "NET/Socket"))
    return GW_NCCL_NET_SOCKET;
  if (starts(via, "NET/IB")) /* NET/IB, NET/IBext, NET/IBext_v8 */
    return gdr ? GW_NCCL_NET_IB_GDR : GW_NCCL_NET_IB;
  if (starts(via, "NET/"))
    return gdr ? GW_NCCL_NET_IB_GDR : GW_NCCL_NET_OTHER;
  return GW_NCCL_UNKNOWN;
}

/* ---- one line ---- */

static const char *skip_spaces(const char *p) {
  while (*p == ' ' || *p == '\t')
    p++;
  return p;
}

/* A non-negative decimal of at most 9 digits (no overflow); -1 when absent. */
static int read_int(const char **pp) {
  const char *p = *pp;
  int v = 0, n = 0;
  while (isdigit((unsigned char)*p) && n < 9) {
    v = v * 10 + (*p - '0');
    p++;
    n++;
  }
  if (n == 0 || isdigit((unsigned char)*p))
    return -1;
  *pp = p;
  return v;
}

static int expect(const char **pp, const char *word) {
  size_t n = strlen(word);
  if (strncmp(*pp, word, n) != 0)
    return 0;
  *pp += n;
  return 1;
}

/* Copy the bytes [a, b) into dst, trimmed of spaces and control bytes at both ends. */
static void copy_trimmed(char *dst, size_t cap, const char *a, const char *b) {
  while (a < b && (unsigned char)*a <= ' ')
    a++;
  while (b > a && (unsigned char)b[-1] <= ' ')
    b--;
  size_t n = (size_t)(b - a);
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, a, n);
  dst[n] = '\0';
}

/* The first whitespace-separated token at p. */
static void copy_token(char *dst, size_t cap, const char *p) {
  p = skip_spaces(p);
  const char *e = p;
  while (*e && (unsigned char)*e > ' ')
    e++;
  copy_trimmed(dst, cap, p, e);
}

static int all_digits(const char *a, const char *b, int64_t *out) {
  if (a >= b || b - a > 18)
    return 0;
  int64_t v = 0;
  for (const char *p = a; p < b; p++) {
    if (!isdigit((unsigned char)*p))
      return 0;
    v = v * 10 + (*p - '0');
  }
  *out = v;
  return 1;
}

/* "host:pid:tid [dev]" before the marker at m (line <= m). */
static void parse_prefix(const char *line, const char *m, struct gw_nccl_line *out) {
  /* the last "[digits]" before the marker is the CUDA device */
  const char *close = NULL;
  for (const char *p = m; p > line; p--)
    if (p[-1] == ']') {
      const char *q = p - 1, *d = q;
      while (d > line && isdigit((unsigned char)d[-1]))
        d--;
      if (d < q && d > line && d[-1] == '[') {
        close = d - 1; /* at '[' */
        int64_t dev;
        if (all_digits(d, q, &dev) && dev <= 1023)
          out->cuda_dev = (int)dev;
        break;
      }
    }
  if (!close)
    return;
  const char *end = close;
  while (end > line && end[-1] == ' ')
    end--;
  const char *start = end;
  while (start > line && start[-1] != ' ' && start[-1] != '\t')
    start--;
  /* split host:pid:tid from the right */
  const char *c2 = NULL, *c1 = NULL;
  for (const char *p = end; p > start; p--)
    if (p[-1] == ':') {
      if (!c2)
        c2 = p - 1;
      else {
        c1 = p - 1;
        break;
      }
    }
  int64_t pid, tid;
  if (!c1 || !all_digits(c1 + 1, c2, &pid) || !all_digits(c2 + 1, end, &tid))
    return;
  out->pid = pid;
  out->tid = tid;
  copy_trimmed(out->host, sizeof out->host, start, c1);
}

/* key value pairs after "comm 0x...": rank 0 nRanks 2 nNodes 1 ... */
static void parse_comm(const char *p, struct gw_nccl_line *out) {
  while (*p) {
    p = skip_spaces(p);
    const char *k = p;
    while (*p && *p != ' ')
      p++;
    size_t klen = (size_t)(p - k);
    p = skip_spaces(p);
    const char *v = p;
    int val = read_int(&v);
    if (val < 0)
      continue;
    p = v;
    struct {
      const char *key;
      int *dst;
    } keys[] = {{"rank", &out->rank},        {"nRanks", &out->nranks},          {"nranks", &out->nranks},
                {"nNodes", &out->nnodes},    {"localRanks", &out->local_ranks}, {"localRank", &out->local_rank},
                {"nvmlDev", &out->nvml_dev}, {"cudaDev", &out->cuda_dev}};
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++)
      if (strlen(keys[i].key) == klen && strncmp(keys[i].key, k, klen) == 0)
        *keys[i].dst = val;
  }
}

/* "Channel 00/0 : 0[0] -> 1[1] [send] via NET/IB/0/GDRDMA" (the "/0" and
 * the direction are optional), or "CollNet 00/0 : ... via COLLNET/...". */
static int parse_channel(const char *msg, struct gw_nccl_line *out) {
  const char *p = msg;
  if (!expect(&p, "Channel ") && !expect(&p, "CollNet "))
    return 0;
  const char *via = strstr(p, " via ");
  if (!via)
    return 0;
  out->channel = read_int(&p);
  if (out->channel >= 0 && *p == '/') {
    p++;
    (void)read_int(&p);
  }
  p = skip_spaces(p);
  if (expect(&p, ":")) {
    p = skip_spaces(p);
    const char *q = p;
    int src = read_int(&q);
    if (src >= 0 && *q == '[') {
      out->src_rank = src;
      const char *arrow = strstr(q, "->");
      if (arrow && arrow < via) {
        q = skip_spaces(arrow + 2);
        out->dst_rank = read_int(&q);
      }
    }
  }
  const char *dir = strstr(p, "[send]");
  if (dir && dir < via)
    out->direction = 1;
  dir = strstr(p, "[receive]");
  if (dir && dir < via)
    out->direction = 2;
  copy_token(out->via, sizeof out->via, via + 5);
  /* "P2P/direct pointer" carries a space: keep the second word */
  if (strcmp(out->via, "P2P/direct") == 0)
    copy_trimmed(out->via, sizeof out->via, via + 5, via + 5 + strcspn(via + 5, "\r\n"));
  out->transport = gw_nccl_classify_via(out->via);
  return 1;
}

enum gw_nccl_line_kind gw_nccl_parse_line(const char *line, struct gw_nccl_line *out) {
  memset(out, 0, sizeof *out);
  out->pid = out->tid = -1;
  out->cuda_dev = out->rank = out->nranks = out->nnodes = out->local_ranks = out->local_rank = out->nvml_dev = -1;
  out->channel = out->src_rank = out->dst_rank = -1;
  out->transport = GW_NCCL_UNKNOWN;
  out->nvls_channels = -1;
  out->kind = GW_NCCL_LINE_NOT_NCCL;
  if (!line)
    return out->kind;
  const char *info = strstr(line, "NCCL INFO");
  const char *warn = strstr(line, "NCCL WARN");
  const char *m = info && (!warn || info < warn) ? info : warn;
  if (!m) {
    /* rank 0 prints the version on its own line, without a prefix */
    const char *v = strstr(line, "NCCL version ");
    if (v) {
      copy_token(out->version, sizeof out->version, v + 13);
      out->kind = out->version[0] ? GW_NCCL_LINE_VERSION : GW_NCCL_LINE_NOT_NCCL;
    }
    return out->kind;
  }
  parse_prefix(line, m, out);
  const char *msg = skip_spaces(m + 9);
  const char *eol = msg + strcspn(msg, "\r\n");
  out->kind = GW_NCCL_LINE_OTHER;
  if (m == warn) {
    copy_trimmed(out->text, sizeof out->text, msg, eol);
    return out->kind = GW_NCCL_LINE_WARN;
  }
  const char *p = msg;
  if (expect(&p, "NCCL version ")) {
    copy_token(out->version, sizeof out->version, p);
    return out->kind = out->version[0] ? GW_NCCL_LINE_VERSION : GW_NCCL_LINE_OTHER;
  }
  if (parse_channel(msg, out))
    return out->kind = GW_NCCL_LINE_CHANNEL;
  if (expect(&p, "Using network ")) {
    copy_token(out->network, sizeof out->network, p);
    return out->kind = out->network[0] ? GW_NCCL_LINE_NETWORK : GW_NCCL_LINE_OTHER;
  }
  /* "comm 0x..." or "ncclCommInitRank[Config] comm 0x..." */
  p = msg;
  if (starts(p, "ncclComm"))
    p = skip_spaces(p + strcspn(p, " "));
  if (expect(&p, "comm 0x")) {
    while (isxdigit((unsigned char)*p))
      p++;
    parse_comm(p, out);
    /* device numbers are small (NVML indexes); a larger one is damage */
    if (out->cuda_dev > 1023)
      out->cuda_dev = -1;
    if (out->nvml_dev > 1023)
      out->nvml_dev = -1;
    if (out->rank >= 0)
      return out->kind = GW_NCCL_LINE_COMM;
    return out->kind;
  }
  if (starts(msg, "Ring "))
    return out->kind = GW_NCCL_LINE_RING;
  if (starts(msg, "Trees ") || starts(msg, "Tree "))
    return out->kind = GW_NCCL_LINE_TREE;
  const char *set = strstr(msg, " set by environment to");
  if (set && set > msg) {
    copy_token(out->env_name, sizeof out->env_name, msg);
    const char *v = skip_spaces(set + strlen(" set by environment to"));
    const char *ve = v + strcspn(v, "\r\n");
    while (ve > v && (ve[-1] == '.' || (unsigned char)ve[-1] <= ' '))
      ve--; /* the sentence's full stop is not part of the value */
    copy_trimmed(out->env_value, sizeof out->env_value, v, ve);
    return out->kind = GW_NCCL_LINE_ENV;
  }
  if (strstr(msg, "Could not enable P2P") || strstr(msg, "P2P is disabled")) {
    copy_trimmed(out->text, sizeof out->text, msg, eol);
    return out->kind = GW_NCCL_LINE_P2P_FAILED;
  }
  if (starts(msg, "NET/IB") && strstr(msg, "No device found"))
    return out->kind = GW_NCCL_LINE_NO_IB;
  if (strstr(msg, "GPU Direct RDMA Disabled"))
    return out->kind = GW_NCCL_LINE_GDR_OFF;
  if (strstr(msg, "NVLS multicast support is available"))
    return out->kind = GW_NCCL_LINE_NVLS;
  const char *nv = strstr(msg, " nvls channels");
  if (nv) {
    /* "16 coll channels, 0 nvls channels, ...": the number before it */
    const char *d = nv;
    while (d > msg && isdigit((unsigned char)d[-1]))
      d--;
    int64_t n;
    if (all_digits(d, nv, &n) && n < 100000) {
      out->nvls_channels = (int)n;
      return out->kind = GW_NCCL_LINE_NVLS;
    }
  }
  return out->kind;
}

/* ---- the summary ---- */

void gw_nccl_summary_init(struct gw_nccl_summary *s) {
  memset(s, 0, sizeof *s);
  s->nnodes = -1;
  s->nvls_channels = -1;
  s->env_p2p_disable = s->env_shm_disable = s->env_ib_disable = -1;
}

static struct gw_nccl_rank *rank_entry(struct gw_nccl_summary *s, int node, int64_t pid, int cuda_dev,
                                       const char *host) {
  for (int i = 0; i < s->nranks_seen; i++) {
    struct gw_nccl_rank *r = &s->ranks[i];
    if (r->node == node && r->pid == pid && r->cuda_dev == cuda_dev)
      return r;
  }
  if (s->nranks_seen >= GW_NCCL_MAX_RANKS)
    return NULL;
  struct gw_nccl_rank *r = &s->ranks[s->nranks_seen++];
  memset(r, 0, sizeof *r);
  r->node = node;
  r->pid = pid;
  r->cuda_dev = cuda_dev;
  r->nvml_dev = r->rank = r->nranks = r->nnodes = r->local_ranks = -1;
  gw_strlcpy(r->host, host ? host : "", sizeof r->host);
  return r;
}

static int env_flag(const char *value) {
  int64_t v;
  if (value && gw_parse_i64(value, &v) == 0)
    return v != 0;
  return value && value[0] ? 1 : -1;
}

void gw_nccl_summary_env(struct gw_nccl_summary *s, const char *name, const char *value) {
  if (!name || !value)
    return;
  if (strcmp(name, "NCCL_P2P_DISABLE") == 0)
    s->env_p2p_disable = env_flag(value);
  else if (strcmp(name, "NCCL_SHM_DISABLE") == 0)
    s->env_shm_disable = env_flag(value);
  else if (strcmp(name, "NCCL_IB_DISABLE") == 0)
    s->env_ib_disable = env_flag(value);
  else if (strcmp(name, "NCCL_SOCKET_IFNAME") == 0)
    gw_strlcpy(s->env_socket_ifname, value, sizeof s->env_socket_ifname);
  else if (strcmp(name, "NCCL_IB_HCA") == 0)
    gw_strlcpy(s->env_ib_hca, value, sizeof s->env_ib_hca);
  else if (strcmp(name, "NCCL_P2P_LEVEL") == 0)
    gw_strlcpy(s->env_p2p_level, value, sizeof s->env_p2p_level);
}

void gw_nccl_summary_add(struct gw_nccl_summary *s, int node, int64_t pid, const char *line) {
  struct gw_nccl_line l;
  enum gw_nccl_line_kind kind = gw_nccl_parse_line(line, &l);
  s->has_log = 1;
  s->lines++;
  if (kind == GW_NCCL_LINE_NOT_NCCL)
    return;
  s->nccl_lines++;
  if (pid <= 0)
    pid = l.pid;
  struct gw_nccl_rank *r = NULL;
  if (kind == GW_NCCL_LINE_COMM || kind == GW_NCCL_LINE_CHANNEL || kind == GW_NCCL_LINE_NETWORK ||
      kind == GW_NCCL_LINE_WARN)
    r = rank_entry(s, node, pid, l.cuda_dev, l.host);
  switch (kind) {
  case GW_NCCL_LINE_VERSION:
    if (!s->version[0])
      gw_strlcpy(s->version, l.version, sizeof s->version);
    break;
  case GW_NCCL_LINE_COMM:
    if (l.nnodes > s->nnodes)
      s->nnodes = l.nnodes;
    if (r && l.nranks >= r->nranks) { /* the largest communicator is the job's world */
      r->rank = l.rank;
      r->nranks = l.nranks;
      if (l.nnodes >= 0)
        r->nnodes = l.nnodes;
      if (l.local_ranks >= 0)
        r->local_ranks = l.local_ranks;
    }
    if (r && l.nvml_dev >= 0)
      r->nvml_dev = l.nvml_dev;
    break;
  case GW_NCCL_LINE_CHANNEL:
    s->connections[l.transport]++;
    if (r)
      r->connections[l.transport]++;
    break;
  case GW_NCCL_LINE_NETWORK:
    gw_strlcpy(s->network, l.network, sizeof s->network);
    if (r)
      gw_strlcpy(r->network, l.network, sizeof r->network);
    break;
  case GW_NCCL_LINE_RING:
    s->rings++;
    break;
  case GW_NCCL_LINE_TREE:
    s->trees++;
    break;
  case GW_NCCL_LINE_ENV:
    gw_nccl_summary_env(s, l.env_name, l.env_value);
    break;
  case GW_NCCL_LINE_P2P_FAILED:
    s->p2p_failed_lines++;
    break;
  case GW_NCCL_LINE_NO_IB:
    s->no_ib_lines++;
    break;
  case GW_NCCL_LINE_GDR_OFF:
    s->gdr_off_lines++;
    break;
  case GW_NCCL_LINE_NVLS:
    if (l.nvls_channels > s->nvls_channels)
      s->nvls_channels = l.nvls_channels;
    break;
  case GW_NCCL_LINE_WARN:
    if (s->nwarnings < GW_NCCL_MAX_WARN)
      gw_strlcpy(s->warnings[s->nwarnings], l.text, sizeof s->warnings[0]);
    s->nwarnings++;
    if (r)
      r->warnings++;
    break;
  default:
    break;
  }
}

/* Nodes the job spans: NCCL's own count, else the distinct hosts that logged. */
static int job_nodes(const struct gw_nccl_summary *s) {
  int hosts = 0;
  for (int i = 0; i < s->nranks_seen; i++) {
    int seen = 0;
    for (int j = 0; j < i && !seen; j++)
      seen = s->ranks[j].node == s->ranks[i].node && strcmp(s->ranks[j].host, s->ranks[i].host) == 0;
    hosts += !seen;
  }
  return s->nnodes > hosts ? s->nnodes : hosts;
}

void gw_nccl_summary_finish(struct gw_nccl_summary *s) {
  memset(s->advice, 0, sizeof s->advice);
  int nodes = job_nodes(s);
  const int *c = s->connections;
  if (c[GW_NCCL_NET_SOCKET] > 0 && nodes <= 1)
    s->advice[GW_NCCL_ADV_SOCKET_ONE_NODE] = 1;
  if (c[GW_NCCL_NET_SOCKET] > 0 && nodes > 1)
    s->advice[GW_NCCL_ADV_SOCKET_NODES] = 1;
  if (c[GW_NCCL_SHM] > 0)
    s->advice[GW_NCCL_ADV_SHM_BETWEEN_GPUS] = 1;
  if (s->env_p2p_disable == 1 || s->p2p_failed_lines > 0)
    s->advice[GW_NCCL_ADV_P2P_DISABLED] = 1;
  /* shared memory off matters when it pushed GPUs of one machine onto sockets */
  if (s->env_shm_disable == 1 && (c[GW_NCCL_NET_SOCKET] > 0 || !s->has_log))
    s->advice[GW_NCCL_ADV_SHM_DISABLED] = 1;
  if (c[GW_NCCL_NET_IB] > 0)
    s->advice[GW_NCCL_ADV_IB_NO_GDR] = 1;
  if (s->env_ib_disable == 1 && (nodes > 1 || c[GW_NCCL_NET_SOCKET] > 0))
    s->advice[GW_NCCL_ADV_IB_DISABLED] = 1;
  if (s->nwarnings > 0)
    s->advice[GW_NCCL_ADV_WARNINGS] = 1;
}

void gw_nccl_summary_merge(struct gw_nccl_summary *a, const struct gw_nccl_summary *b) {
  a->has_log |= b->has_log;
  a->lines += b->lines;
  a->nccl_lines += b->nccl_lines;
  if (!a->version[0])
    gw_strlcpy(a->version, b->version, sizeof a->version);
  if (b->nnodes > a->nnodes)
    a->nnodes = b->nnodes;
  if (!a->network[0])
    gw_strlcpy(a->network, b->network, sizeof a->network);
  for (int t = 0; t < GW_NCCL_NTRANSPORTS; t++)
    a->connections[t] += b->connections[t];
  a->rings += b->rings;
  a->trees += b->trees;
  if (b->nvls_channels > a->nvls_channels)
    a->nvls_channels = b->nvls_channels;
  a->p2p_failed_lines += b->p2p_failed_lines;
  a->no_ib_lines += b->no_ib_lines;
  a->gdr_off_lines += b->gdr_off_lines;
  if (b->env_p2p_disable > a->env_p2p_disable)
    a->env_p2p_disable = b->env_p2p_disable;
  if (b->env_shm_disable > a->env_shm_disable)
    a->env_shm_disable = b->env_shm_disable;
  if (b->env_ib_disable > a->env_ib_disable)
    a->env_ib_disable = b->env_ib_disable;
  if (!a->env_socket_ifname[0])
    gw_strlcpy(a->env_socket_ifname, b->env_socket_ifname, sizeof a->env_socket_ifname);
  if (!a->env_ib_hca[0])
    gw_strlcpy(a->env_ib_hca, b->env_ib_hca, sizeof a->env_ib_hca);
  if (!a->env_p2p_level[0])
    gw_strlcpy(a->env_p2p_level, b->env_p2p_level, sizeof a->env_p2p_level);
  for (int i = 0; i < b->nwarnings && i < GW_NCCL_MAX_WARN; i++)
    if (a->nwarnings < GW_NCCL_MAX_WARN)
      gw_strlcpy(a->warnings[a->nwarnings++], b->warnings[i], sizeof a->warnings[0]);
    else
      a->nwarnings++;
  for (int i = 0; i < b->nranks_seen && a->nranks_seen < GW_NCCL_MAX_RANKS; i++)
    a->ranks[a->nranks_seen++] = b->ranks[i];
  gw_nccl_summary_finish(a);
}

void gw_nccl_rank_transports(const struct gw_nccl_rank *r, char *out, size_t cap) {
  size_t len = 0;
  out[0] = '\0';
  for (int t = 0; t < GW_NCCL_NTRANSPORTS; t++) {
    if (r->connections[t] <= 0)
      continue;
    const char *name = gw_nccl_transport_name((enum gw_nccl_transport)t);
    size_t n = strlen(name) + (len ? 1 : 0);
    if (len + n + 1 > cap)
      break;
    if (len)
      out[len++] = '+';
    memcpy(out + len, name, strlen(name) + 1);
    len += strlen(name);
  }
}

const struct gw_nccl_rank *gw_nccl_rank_for_gpu(const struct gw_nccl_summary *s, int node, int64_t pid,
                                                int nvml_index) {
  if (!s)
    return NULL;
  /* the process that ran the kernels, on the device NCCL named for it */
  const struct gw_nccl_rank *by_pid = NULL, *by_nvml = NULL, *by_cuda = NULL;
  int pid_count = 0;
  for (int i = 0; i < s->nranks_seen; i++) {
    const struct gw_nccl_rank *r = &s->ranks[i];
    if (r->node != node)
      continue;
    if (pid > 0 && r->pid == pid) {
      pid_count++;
      if (!by_pid || r->nvml_dev == nvml_index || r->cuda_dev == nvml_index)
        by_pid = r;
    }
    if (r->nvml_dev == nvml_index && !by_nvml)
      by_nvml = r;
    if (r->nvml_dev < 0 && r->cuda_dev == nvml_index && !by_cuda)
      by_cuda = r;
  }
  if (by_pid)
    return by_pid;
  return by_nvml ? by_nvml : by_cuda;
}

/* ---- advice ---- */

/* The advice's ids; render/label_text.c words them. */
static const char *const ADVICE_IDS[GW_NCCL_NADVICE] = {
    [GW_NCCL_ADV_SOCKET_ONE_NODE] = "socket_one_node", [GW_NCCL_ADV_SHM_BETWEEN_GPUS] = "shm_between_gpus",
    [GW_NCCL_ADV_P2P_DISABLED] = "p2p_disabled",       [GW_NCCL_ADV_SHM_DISABLED] = "shm_disabled",
    [GW_NCCL_ADV_IB_NO_GDR] = "ib_without_gdr",        [GW_NCCL_ADV_SOCKET_NODES] = "socket_between_nodes",
    [GW_NCCL_ADV_IB_DISABLED] = "ib_disabled",         [GW_NCCL_ADV_WARNINGS] = "nccl_warnings",
};

const char *gw_nccl_advice_id(enum gw_nccl_advice a) {
  return (unsigned)a < GW_NCCL_NADVICE ? ADVICE_IDS[a] : "";
}

/* ---- reading a recording ---- */

/* A log of NCCL_DEBUG=INFO from a large job is tens of thousands of lines;
 * more than this is a log left on with SUBSYS=ALL, whose start says it all. */
#define NCCL_MAX_LINES 2000000L

gw_status gw_nccl_read(struct gw_store *st, struct gw_nccl_summary *out, struct gw_err *err) {
  gw_nccl_summary_init(out);
  struct gw_store_iter *it = gw_store_iter_nccl_env(st);
  struct gw_store_env_row env;
  while (gw_store_next_env(it, &env))
    gw_nccl_summary_env(out, env.name, env.value);
  gw_store_iter_close(it);
  if (gw_store_has_table(st, "nccl_log")) {
    if (!(it = gw_store_iter_nccl_log(st, err)))
      return GW_EINPUT;
    long n = 0;
    struct gw_store_nccl_row row;
    while (n++ < NCCL_MAX_LINES && gw_store_next_nccl(it, &row))
      if (row.line)
        gw_nccl_summary_add(out, 0, row.pid, row.line);
    gw_store_iter_close(it);
  }
  gw_nccl_summary_finish(out);
  return GW_OK;
}
