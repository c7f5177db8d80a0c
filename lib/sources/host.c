/* Host sampler: turns /proc and /sys counters into per-interval figures.
 * Everything is read below h->root so fixture trees can stand in for the
 * live system. Buffers are allocated at open: a tick does no malloc except
 * what opendir() does inside libc for the target's task list. */
#include "host.h"

#include <dirent.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "core/i18n.h"

#define GW_HOST_MAX_PROCS 256
/* autograd keeps one device thread per accelerator a process uses (and one
 * for the CPU): 16 covers a process that drives every GPU of a node */
#define GW_HOST_MAX_AUTOGRAD_THREADS 16
#define GW_HOST_MAX_DISKS 256
#define GW_HOST_MAX_SUPPLIES 16
#define GW_HOST_MAX_BLOCK_NAMES 512
#define GW_HOST_MAX_CORES 65536
#define GW_HOST_READ_CAP (256 * 1024) /* /proc/stat and /proc/diskstats of large hosts */
#define GW_HOST_PID_READ_CAP 4096     /* one /proc/<pid>/stat line */
#define GW_HOST_CPUINFO_CAP (8 * 1024 * 1024)
#define GW_HOST_MAX_TREE_DEPTH                                                                                         \
  256 /* longer parent chains are taken as loops                                                                       \
       */

/* A process of the target's tree, followed from tick to tick. */
struct tracked_proc {
  int pid;
  uint64_t starttime_ticks; /* tells a reused pid from the process we follow */
  uint64_t cpu_ticks;       /* utime + stime at the last sample */
  int64_t last_t_ns;
  int has_prev;
  uint64_t main_thread_ticks; /* target only: utime + stime of its first thread */
  int has_main_prev;
  /* target only: PyTorch's autograd device threads (pt_autograd_N), found
   * on the rescans that read every task, and the ticks of the launching
   * threads (main + those) at the last sample */
  int autograd_tids[GW_HOST_MAX_AUTOGRAD_THREADS];
  int nautograd;
  uint64_t launch_ticks;
  int has_launch_prev;
  char comm[32];
  /* Live system only: /proc/PID/stat and /proc/PID/task/PID/stat kept open
   * (-1: not open). A descriptor stays bound to its process: once the process
   * is gone a read fails with ESRCH, even when the pid is reused. */
  int stat_fd, main_thread_stat_fd;
};

static struct tracked_proc new_tracked(int pid, uint64_t starttime_ticks, const char *comm) {
  struct tracked_proc t = {.pid = pid, .starttime_ticks = starttime_ticks, .stat_fd = -1, .main_thread_stat_fd = -1};
  gw_strlcpy(t.comm, comm, sizeof t.comm);
  return t;
}

static void forget_tracked(struct tracked_proc *t) {
  if (t->stat_fd >= 0)
    close(t->stat_fd);
  if (t->main_thread_stat_fd >= 0)
    close(t->main_thread_stat_fd);
  t->stat_fd = t->main_thread_stat_fd = -1;
}

/* One process seen during a rescan of /proc. */
struct scan_entry {
  int pid, ppid;
  uint64_t starttime_ticks;
  int membership; /* 0 not known yet, 1 in the tree, 2 not in the tree */
  char comm[32];
};

struct psi_state {
  int have_prev;
  uint64_t some_us, full_us;
  int64_t t_ns; /* when those totals were read: PSI is not read every tick */
};

struct power_supply {
  char name[64];
  int is_mains; /* 1 Mains, 0 Battery */
};

/* System-wide files re-read every tick. On the live system their file
 * descriptors stay open and are re-read from offset 0 (the kernel regenerates
 * the text), which saves a path walk and an open/close per file per tick. A
 * fixture root is opened afresh each time so tests can swap the files. */
enum sys_file { F_STAT, F_MEMINFO, F_LOADAVG, F_DISKSTATS, F_PSI_CPU, F_PSI_MEMORY, F_PSI_IO, SYS_NFILES };
static const char *const sys_file_path[SYS_NFILES] = {"/proc/stat",       "/proc/meminfo",      "/proc/loadavg",
                                                      "/proc/diskstats",  "/proc/pressure/cpu", "/proc/pressure/memory",
                                                      "/proc/pressure/io"};

struct gw_host {
  char *root;
  int live;               /* root is the running system: keep sys_fd open */
  int sys_fd[SYS_NFILES]; /* -1 until first opened */
  char *buf;              /* shared read buffer for the system-wide files */
  char pid_buf[GW_HOST_PID_READ_CAP];
  long clk_tck;
  long page_size;

  int have_prev_t;
  int64_t prev_t_ns;
  int have_prev_disk_t;
  int64_t prev_disk_t_ns; /* disks are read on slow ticks only: their own interval */
  int prev_cores_ok;      /* per-core counters of the last slow tick are in prev_cores */

  /* CPU: current and previous ticks, indexed by core number. */
  int cores_cap;
  int prev_cpu_ok, prev_ncores;
  struct gw_cpu_ticks prev_total, cur_total;
  struct gw_cpu_ticks *prev_cores, *cur_cores;
  struct gw_cpu_sample *core_out;

  /* Disks: counters of the last tick, matched by name. */
  int prev_ndisks;
  struct gw_disk_counters prev_disks[GW_HOST_MAX_DISKS], cur_disks[GW_HOST_MAX_DISKS];
  struct gw_disk_sample disk_out[GW_HOST_MAX_DISKS];
  int have_block_list, nblock;
  char (*block_names)[32];

  struct psi_state psi[3]; /* cpu, memory, io */

  int nsupplies;
  struct power_supply supplies[GW_HOST_MAX_SUPPLIES];
  int governor_present;

  /* Process tree. */
  int target_pid;
  int need_rescan, initial_scan_done;
  int ntracked;
  struct tracked_proc tracked[GW_HOST_MAX_PROCS];
  struct gw_proc_sample proc_out[GW_HOST_MAX_PROCS];
  struct scan_entry *scan;
  size_t scan_cap;
};

/* Append a note to err; a sample collects several and still succeeds. */
static void note(struct gw_err *err, const char *fmt, ...) GW_PRINTF(2, 3);
static void note(struct gw_err *err, const char *fmt, ...) {
  if (!err)
    return;
  size_t used = strlen(err->msg);
  if (used + 3 >= sizeof err->msg)
    return;
  if (used > 0) {
    memcpy(err->msg + used, "; ", 3);
    used += 2;
  }
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(err->msg + used, sizeof err->msg - used, fmt, ap);
  va_end(ap);
}

static int is_live_root(const char *root) {
  return !root || !root[0] || (root[0] == '/' && !root[1]);
}

static int all_digits(const char *s) {
  if (!*s)
    return 0;
  for (; *s; s++)
    if (*s < '0' || *s > '9')
      return 0;
  return 1;
}

static void strip_newline(char *s) {
  size_t n = strlen(s);
  while (n > 0 && (s[n - 1] == '\n' || s[n - 1] == ' ' || s[n - 1] == '\t'))
    s[--n] = '\0';
}

/* Read a /proc or /sys file of the running system into buf (NUL-terminated)
 * through a descriptor kept open between ticks (*fd, -1 until first opened):
 * opening and closing by path cost more than the read itself at 10 Hz. A
 * failed read closes the descriptor; -1 with errno (ESRCH: the process whose
 * file it was is gone). */
static long read_kept_open(int *fd, const char *path, char *buf, size_t cap) {
  if (*fd < 0) {
    *fd = open(path, O_RDONLY | O_CLOEXEC);
    if (*fd < 0)
      return -1;
  }
  size_t len = 0;
  while (len + 1 < cap) {
    ssize_t r = pread(*fd, buf + len, cap - 1 - len, (off_t)len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r < 0) {
      int saved = errno;
      close(*fd);
      *fd = -1;
      errno = saved;
      return -1;
    }
    if (r == 0)
      break;
    len += (size_t)r;
  }
  buf[len] = '\0';
  return (long)len;
}

/* Read one of the system-wide files into buf (NUL-terminated); -1 with errno. */
static long read_sys(struct gw_host *h, enum sys_file f, char *buf, size_t cap) {
  if (!h->live)
    return gw_read_file_at(h->root, sys_file_path[f], buf, cap, NULL);
  return read_kept_open(&h->sys_fd[f], sys_file_path[f], buf, cap);
}

/* Read a one-line /sys or /proc value into out, newline removed. */
static int read_line_at(const char *root, const char *path, char *out, size_t cap) {
  if (gw_read_file_at(root, path, out, cap, NULL) < 0)
    return -1;
  strip_newline(out);
  return 0;
}

static DIR *opendir_at(const char *root, const char *path) {
  char full[4096];
  if (gw_path_at(root, path, full, sizeof full) != 0)
    return NULL;
  return opendir(full);
}

/* ---- setup ---- */

/* Whole disks are the names under /sys/block; partitions are not there. */
static void load_block_list(struct gw_host *h) {
  DIR *d = opendir_at(h->root, "/sys/block");
  if (!d)
    return; /* keep the previous list, or the parser's name rules alone */
  int n = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && n < GW_HOST_MAX_BLOCK_NAMES) {
    if (de->d_name[0] == '.')
      continue;
    if (gw_strlcpy(h->block_names[n], de->d_name, sizeof h->block_names[n]) == 0)
      n++;
  }
  closedir(d);
  h->nblock = n;
  h->have_block_list = 1;
}

static void load_power_supplies(struct gw_host *h) {
  h->nsupplies = 0;
  DIR *d = opendir_at(h->root, "/sys/class/power_supply");
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && h->nsupplies < GW_HOST_MAX_SUPPLIES) {
    char path[512], type[64];
    if (de->d_name[0] == '.' || strlen(de->d_name) >= sizeof h->supplies[0].name)
      continue;
    if (snprintf(path, sizeof path, "/sys/class/power_supply/%s/type", de->d_name) >= (int)sizeof path)
      continue;
    if (read_line_at(h->root, path, type, sizeof type) != 0)
      continue;
    /* USB, UPS and peripheral batteries say nothing about what feeds the host.
     */
    int is_mains = strcmp(type, "Mains") == 0;
    if (!is_mains && strcmp(type, "Battery") != 0)
      continue;
    struct power_supply *s = &h->supplies[h->nsupplies++];
    gw_strlcpy(s->name, de->d_name, sizeof s->name);
    s->is_mains = is_mains;
  }
  closedir(d);
}

gw_status gw_host_open(struct gw_host **out, const char *root, struct gw_err *err) {
  if (!out) {
    gw_err_set(err, "gw_host_open: no output pointer");
    return GW_ERR;
  }
  *out = NULL;
  const char *r = is_live_root(root) ? "" : root;
  char probe[256];
  if (gw_read_file_at(r, "/proc/stat", probe, sizeof probe, NULL) < 0) {
    gw_err_set(err, "host source: cannot read %s/proc/stat: %s", r, gw_strerror(errno));
    return GW_ENOTSUP;
  }
  struct gw_host *h = gw_xcalloc(1, sizeof *h);
  h->root = gw_xstrdup(r);
  h->live = r[0] == '\0';
  for (int f = 0; f < SYS_NFILES; f++)
    h->sys_fd[f] = -1;
  h->buf = gw_xcalloc(1, GW_HOST_READ_CAP);
  h->clk_tck = sysconf(_SC_CLK_TCK);
  if (h->clk_tck <= 0)
    h->clk_tck = 100;
  h->page_size = sysconf(_SC_PAGESIZE);
  if (h->page_size <= 0)
    h->page_size = 4096;
  h->cores_cap = 256;
  h->prev_cores = gw_xcalloc((size_t)h->cores_cap, sizeof *h->prev_cores);
  h->cur_cores = gw_xcalloc((size_t)h->cores_cap, sizeof *h->cur_cores);
  h->core_out = gw_xcalloc((size_t)h->cores_cap, sizeof *h->core_out);
  h->block_names = gw_xcalloc(GW_HOST_MAX_BLOCK_NAMES, sizeof *h->block_names);
  load_block_list(h);
  load_power_supplies(h);
  char gov[32];
  h->governor_present =
      read_line_at(h->root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor", gov, sizeof gov) == 0;
  *out = h;
  return GW_OK;
}

void gw_host_close(struct gw_host *h) {
  if (!h)
    return;
  for (int f = 0; f < SYS_NFILES; f++)
    if (h->sys_fd[f] >= 0)
      close(h->sys_fd[f]);
  for (int i = 0; i < h->ntracked; i++)
    forget_tracked(&h->tracked[i]);
  free(h->root);
  free(h->buf);
  free(h->prev_cores);
  free(h->cur_cores);
  free(h->core_out);
  free(h->block_names);
  free(h->scan);
  free(h);
}

void gw_host_set_target(struct gw_host *h, int pid) {
  if (!h)
    return;
  h->target_pid = pid > 0 ? pid : 0;
  for (int i = 0; i < h->ntracked; i++)
    forget_tracked(&h->tracked[i]);
  h->ntracked = 0;
  h->need_rescan = h->target_pid > 0;
  h->initial_scan_done = 0;
}

/* ---- CPU ---- */

/* A counter that went backwards (iowait can) counts as no time. */
static uint64_t tick_delta(uint64_t prev, uint64_t cur) {
  return cur >= prev ? cur - prev : 0;
}

/* Tick sums in double: counters near 2^64 (a corrupt or hostile /proc/stat)
 * would wrap a uint64 sum and give a share outside 0..100 %. */
static int cpu_rates(const struct gw_cpu_ticks *a, const struct gw_cpu_ticks *b, int core, struct gw_cpu_sample *o) {
  double user = (double)tick_delta(a->user, b->user) + (double)tick_delta(a->nice, b->nice);
  double sys = (double)tick_delta(a->system, b->system) + (double)tick_delta(a->irq, b->irq) +
               (double)tick_delta(a->softirq, b->softirq);
  double idle = (double)tick_delta(a->idle, b->idle);
  double iowait = (double)tick_delta(a->iowait, b->iowait);
  double steal = (double)tick_delta(a->steal, b->steal);
  double all = user + sys + idle + iowait + steal;
  if (!(all > 0))
    return -1;
  double scale = 100.0 / all;
  o->core = core;
  o->user_pct = user * scale;
  o->system_pct = sys * scale;
  o->iowait_pct = iowait * scale;
  o->steal_pct = steal * scale;
  /* Busy is what was neither idle nor waiting on I/O; the sum's rounding
   * can put it a hair above 100. */
  o->busy_pct = fmin(100.0, (user + sys + steal) * scale);
  return 0;
}

static int ticks_present(const struct gw_cpu_ticks *t) {
  return (t->user | t->nice | t->system | t->idle | t->iowait | t->irq | t->softirq | t->steal) != 0;
}

static int grow_cores(struct gw_host *h, int need) {
  if (need > GW_HOST_MAX_CORES)
    return -1;
  size_t old = (size_t)h->cores_cap, n = (size_t)need;
  h->prev_cores = gw_xrealloc(h->prev_cores, n * sizeof *h->prev_cores);
  h->cur_cores = gw_xrealloc(h->cur_cores, n * sizeof *h->cur_cores);
  h->core_out = gw_xrealloc(h->core_out, n * sizeof *h->core_out);
  memset(h->prev_cores + old, 0, (n - old) * sizeof *h->prev_cores);
  h->cores_cap = need;
  return 0;
}

/* The total every tick; per-core rows only on slow ticks (once a second),
 * against the previous slow tick: 16 to 200 rows a tick cost more to store
 * than everything else the host sampler does (bench/sampler). */
static void sample_cpu(struct gw_host *h, struct gw_host_sample *out, int64_t dt_ns, int slow, struct gw_err *err) {
  out->cores = h->core_out;
  if (read_sys(h, F_STAT, h->buf, GW_HOST_READ_CAP) < 0) {
    note(err, "cannot read /proc/stat: %s", gw_strerror(errno));
    h->prev_cpu_ok = 0;
    h->prev_cores_ok = 0;
    return;
  }
  struct gw_err perr = {{0}};
  int ncores = gw_parse_proc_stat(h->buf, &h->cur_total, h->cur_cores, h->cores_cap, &perr);
  if (ncores > h->cores_cap) {
    if (grow_cores(h, ncores) == 0)
      ncores = gw_parse_proc_stat(h->buf, &h->cur_total, h->cur_cores, h->cores_cap, &perr);
    else
      ncores = h->cores_cap;
    out->cores = h->core_out; /* grow_cores moved it: a host that gained cores since the last tick */
  }
  if (perr.msg[0])
    note(err, "%s", perr.msg);
  if (ncores < 0) {
    h->prev_cpu_ok = 0;
    h->prev_cores_ok = 0;
    return;
  }
  if (h->prev_cpu_ok && dt_ns > 0 && cpu_rates(&h->prev_total, &h->cur_total, -1, &out->total) == 0)
    out->valid |= 1u << GW_H_CPU;
  h->prev_total = h->cur_total;
  h->prev_cpu_ok = 1;
  if (!slow)
    return;
  if (h->prev_cores_ok) {
    /* Match cores by number: an offline core has no line and is left out. */
    int n = 0;
    for (int c = 0; c < ncores && c < h->prev_ncores; c++)
      if (ticks_present(&h->prev_cores[c]) && ticks_present(&h->cur_cores[c]) &&
          cpu_rates(&h->prev_cores[c], &h->cur_cores[c], c, &h->core_out[n]) == 0)
        n++;
    out->ncores = n;
  }
  struct gw_cpu_ticks *swap = h->prev_cores;
  h->prev_cores = h->cur_cores;
  h->cur_cores = swap;
  h->prev_ncores = ncores;
  h->prev_cores_ok = 1;
}

/* ---- memory, load, pressure, power, governor ---- */

/* "Key:   123 kB" lines; the four we need, or -1 where absent. */
static void sample_mem(struct gw_host *h, struct gw_host_sample *out, struct gw_err *err) {
  static const char *const keys[4] = {"MemTotal", "MemAvailable", "SwapTotal", "SwapFree"};
  int64_t *dst[4] = {&out->mem_total_bytes, &out->mem_available_bytes, &out->swap_total_bytes, &out->swap_free_bytes};
  for (int k = 0; k < 4; k++)
    *dst[k] = -1;
  if (read_sys(h, F_MEMINFO, h->buf, GW_HOST_READ_CAP) < 0) {
    note(err, "cannot read /proc/meminfo: %s", gw_strerror(errno));
    return;
  }
  int line_no = 0;
  for (char *line = h->buf; *line;) {
    line_no++;
    char *nl = strchr(line, '\n');
    if (nl)
      *nl = '\0';
    char *colon = strchr(line, ':');
    for (int k = 0; colon && k < 4; k++) {
      size_t klen = strlen(keys[k]);
      if ((size_t)(colon - line) != klen || strncmp(line, keys[k], klen) != 0)
        continue;
      char value[32];
      const char *p = colon + 1;
      while (*p == ' ' || *p == '\t')
        p++;
      size_t vlen = strcspn(p, " \t");
      const char *unit = p + vlen;
      while (*unit == ' ' || *unit == '\t')
        unit++;
      uint64_t kb;
      if (vlen >= sizeof value || (*unit && strcmp(unit, "kB") != 0)) {
        note(err, "/proc/meminfo line %d: %s is not '<number> kB', skipped", line_no, keys[k]);
        break;
      }
      memcpy(value, p, vlen);
      value[vlen] = '\0';
      if (gw_parse_u64(value, &kb) != 0 || kb > (uint64_t)INT64_MAX / 1024) {
        note(err, "/proc/meminfo line %d: %s value '%s' is not a number, skipped", line_no, keys[k], value);
        break;
      }
      *dst[k] = (int64_t)kb * 1024;
    }
    if (!nl)
      break;
    line = nl + 1;
  }
  if (out->mem_total_bytes >= 0 && out->mem_available_bytes >= 0)
    out->valid |= 1u << GW_H_MEM;
}

/* "0.04 0.03 0.00 1/86 4496": 1-minute load and runnable entities. */
static void sample_load(struct gw_host *h, struct gw_host_sample *out, struct gw_err *err) {
  char text[256], load[32], running[32];
  if (read_sys(h, F_LOADAVG, text, sizeof text) < 0) {
    note(err, "cannot read /proc/loadavg: %s", gw_strerror(errno));
    return;
  }
  strip_newline(text);
  size_t l1 = strcspn(text, " ");
  const char *fourth = text;
  for (int i = 0; i < 3 && fourth; i++) {
    fourth = strchr(fourth, ' ');
    if (fourth)
      fourth++;
  }
  size_t rl = fourth ? strcspn(fourth, "/") : 0;
  double v;
  int64_t r;
  if (l1 == 0 || l1 >= sizeof load || !fourth || rl == 0 || rl >= sizeof running || fourth[rl] != '/') {
    note(err, "/proc/loadavg: expected 'l1 l5 l15 running/total last_pid', skipped");
    return;
  }
  memcpy(load, text, l1);
  load[l1] = '\0';
  memcpy(running, fourth, rl);
  running[rl] = '\0';
  if (gw_parse_double(load, &v) != 0 || v < 0 || gw_parse_i64(running, &r) != 0 || r < 0 || r > INT32_MAX) {
    note(err,
         "/proc/loadavg: load '%s' or running count '%s' is not a number, "
         "skipped",
         load, running);
    return;
  }
  out->loadavg_1m = v;
  out->procs_running = (int)r;
  out->valid |= 1u << GW_H_LOAD;
}

static void sample_psi(struct gw_host *h, struct gw_host_sample *out, int64_t t_ns, struct gw_err *err) {
  static const char *const paths[3] = {"/proc/pressure/cpu", "/proc/pressure/memory", "/proc/pressure/io"};
  static const enum sys_file files[3] = {F_PSI_CPU, F_PSI_MEMORY, F_PSI_IO};
  static const enum gw_host_field fields[3] = {GW_H_PSI_CPU, GW_H_PSI_MEM, GW_H_PSI_IO};
  double *some_out[3] = {&out->psi_cpu_some_pct, &out->psi_mem_some_pct, &out->psi_io_some_pct};
  double *full_out[3] = {NULL, &out->psi_mem_full_pct, &out->psi_io_full_pct};
  for (int i = 0; i < 3; i++) {
    struct psi_state *s = &h->psi[i];
    char text[512];
    uint64_t some = 0, full = 0;
    struct gw_err perr = {{0}};
    /* Absent on old kernels or with psi=0: the field stays invalid, silently.
     */
    if (read_sys(h, files[i], text, sizeof text) < 0) {
      s->have_prev = 0;
      continue;
    }
    int64_t dt_ns = t_ns - s->t_ns;
    int found = gw_parse_psi(text, &some, &full, &perr);
    if (found < 0 || (full_out[i] && found < 2)) {
      note(err, "%s: %s", paths[i], perr.msg[0] ? perr.msg : "no 'full' line");
      s->have_prev = 0;
      continue;
    }
    if (s->have_prev && dt_ns > 0 && some >= s->some_us && full >= s->full_us) {
      double interval_us = (double)dt_ns / 1000.0;
      double some_pct = (double)(some - s->some_us) * 100.0 / interval_us;
      double full_pct = (double)(full - s->full_us) * 100.0 / interval_us;
      /* Kernel and caller clocks differ slightly; a share stays within 100. */
      *some_out[i] = some_pct > 100.0 ? 100.0 : some_pct;
      if (full_out[i])
        *full_out[i] = full_pct > 100.0 ? 100.0 : full_pct;
      out->valid |= 1u << fields[i];
    }
    s->some_us = some;
    s->full_us = full;
    s->t_ns = t_ns;
    s->have_prev = 1;
  }
}

static void sample_power(struct gw_host *h, struct gw_host_sample *out) {
  int mains_online = 0, discharging = 0, answered = 0;
  for (int i = 0; i < h->nsupplies; i++) {
    const struct power_supply *s = &h->supplies[i];
    char path[512], value[64];
    if (snprintf(path, sizeof path, "/sys/class/power_supply/%s/%s", s->name, s->is_mains ? "online" : "status") >=
        (int)sizeof path)
      continue;
    if (read_line_at(h->root, path, value, sizeof value) != 0)
      continue;
    answered = 1;
    if (s->is_mains && strcmp(value, "1") == 0)
      mains_online = 1;
    if (!s->is_mains && strcmp(value, "Discharging") == 0)
      discharging = 1;
  }
  if (!answered)
    return;
  out->on_battery = !mains_online && discharging;
  out->valid |= 1u << GW_H_POWER;
}

static void sample_governor(struct gw_host *h, struct gw_host_sample *out) {
  out->governor[0] = '\0';
  if (h->governor_present && read_line_at(h->root, "/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor",
                                          out->governor, sizeof out->governor) != 0)
    out->governor[0] = '\0';
}

/* ---- disks ---- */

/* Some diskstats fields are 32-bit on some kernels and wrap. A larger step
 * back means the device was replaced: the caller skips it this tick. */
static int counter_delta(uint64_t prev, uint64_t cur, uint64_t *delta) {
  if (cur >= prev)
    *delta = cur - prev;
  else if (prev <= UINT32_MAX)
    *delta = cur + ((uint64_t)UINT32_MAX - prev) + 1;
  else
    return -1;
  return 0;
}

static int disk_is_whole(const struct gw_host *h, const char *name) {
  if (!h->have_block_list)
    return 1;
  for (int i = 0; i < h->nblock; i++)
    if (strcmp(h->block_names[i], name) == 0)
      return 1;
  return 0;
}

static int disk_never_used(const struct gw_disk_counters *d) {
  return (d->rd_ios | d->wr_ios | d->dc_ios | d->io_ticks_ms | d->rd_sectors | d->wr_sectors) == 0;
}

/* iostat -x figures over dt (fields of Linux's Documentation/admin-guide/iostats.rst). 0 on success. */
static int disk_rates(const struct gw_disk_counters *a, const struct gw_disk_counters *b, int64_t dt_ns,
                      struct gw_disk_sample *o) {
  uint64_t rd, wr, dc, rs, ws, rt, wt, dt, io, wq;
  if (counter_delta(a->rd_ios, b->rd_ios, &rd) || counter_delta(a->wr_ios, b->wr_ios, &wr) ||
      counter_delta(a->dc_ios, b->dc_ios, &dc) || counter_delta(a->rd_sectors, b->rd_sectors, &rs) ||
      counter_delta(a->wr_sectors, b->wr_sectors, &ws) || counter_delta(a->rd_ticks_ms, b->rd_ticks_ms, &rt) ||
      counter_delta(a->wr_ticks_ms, b->wr_ticks_ms, &wt) || counter_delta(a->dc_ticks_ms, b->dc_ticks_ms, &dt) ||
      counter_delta(a->io_ticks_ms, b->io_ticks_ms, &io) || counter_delta(a->weighted_ms, b->weighted_ms, &wq))
    return -1;
  double seconds = (double)dt_ns / 1e9;
  double interval_ms = (double)dt_ns / 1e6;
  gw_strlcpy(o->name, b->name, sizeof o->name);
  o->r_per_s = (double)rd / seconds;
  o->w_per_s = (double)wr / seconds;
  o->read_bps = (double)rs * 512.0 / seconds;
  o->write_bps = (double)ws * 512.0 / seconds;
  o->await_ms = (rd + wr + dc) ? (double)(rt + wt + dt) / (double)(rd + wr + dc) : 0.0;
  o->util_pct = (double)io * 100.0 / interval_ms;
  if (o->util_pct > 100.0)
    o->util_pct = 100.0;
  o->aqu_sz = (double)wq / interval_ms;
  return 0;
}

static void sample_disks(struct gw_host *h, struct gw_host_sample *out, int64_t dt_ns, struct gw_err *err) {
  out->disks = h->disk_out;
  if (read_sys(h, F_DISKSTATS, h->buf, GW_HOST_READ_CAP) < 0) {
    note(err, "cannot read /proc/diskstats: %s", gw_strerror(errno));
    h->prev_ndisks = 0;
    return;
  }
  struct gw_err perr = {{0}};
  int parsed = gw_parse_diskstats(h->buf, h->cur_disks, GW_HOST_MAX_DISKS, &perr);
  if (perr.msg[0])
    note(err, "%s", perr.msg);
  int n = 0;
  for (int i = 0; i < parsed; i++)
    if (disk_is_whole(h, h->cur_disks[i].name) && !disk_never_used(&h->cur_disks[i]))
      h->cur_disks[n++] = h->cur_disks[i];
  int nout = 0;
  for (int i = 0; i < n && dt_ns > 0; i++) {
    /* Devices rarely change order: try the same slot first. */
    int j = (i < h->prev_ndisks && strcmp(h->prev_disks[i].name, h->cur_disks[i].name) == 0) ? i : -1;
    for (int k = 0; j < 0 && k < h->prev_ndisks; k++)
      if (strcmp(h->prev_disks[k].name, h->cur_disks[i].name) == 0)
        j = k;
    if (j >= 0 && disk_rates(&h->prev_disks[j], &h->cur_disks[i], dt_ns, &h->disk_out[nout]) == 0)
      nout++;
  }
  out->ndisks = nout;
  memcpy(h->prev_disks, h->cur_disks, (size_t)n * sizeof h->cur_disks[0]);
  h->prev_ndisks = n;
}

/* ---- process tree ---- */

/* fd: a descriptor kept open for path on the live system, NULL to read by
 * path. -1 (errno set) when unreadable, -2 when malformed. */
static int read_pid_stat(struct gw_host *h, const char *path, int *fd, struct gw_pid_stat *st, struct gw_err *perr) {
  long len = fd && h->live ? read_kept_open(fd, path, h->pid_buf, sizeof h->pid_buf)
                           : gw_read_file_at(h->root, path, h->pid_buf, sizeof h->pid_buf, NULL);
  if (len < 0)
    return -1;
  return gw_parse_pid_stat(h->pid_buf, st, perr) == 0 ? 0 : -2;
}

static int find_tracked(const struct gw_host *h, int pid) {
  for (int i = 0; i < h->ntracked; i++)
    if (h->tracked[i].pid == pid)
      return i;
  return -1;
}

static int scan_cmp(const void *a, const void *b) {
  int pa = ((const struct scan_entry *)a)->pid, pb = ((const struct scan_entry *)b)->pid;
  return (pa > pb) - (pa < pb);
}

static struct scan_entry *scan_find(struct gw_host *h, size_t n, int pid) {
  struct scan_entry key = {.pid = pid};
  if (n == 0)
    return NULL; /* bsearch must not see a NULL array */
  return bsearch(&key, h->scan, n, sizeof *h->scan, scan_cmp);
}

static void emit_proc_event(const struct gw_event_sink *events, int64_t t_ns, const char *kind, int pid,
                            const char *fmt, ...) GW_PRINTF(5, 6);
static void emit_proc_event(const struct gw_event_sink *events, int64_t t_ns, const char *kind, int pid,
                            const char *fmt, ...) {
  if (!events || !events->emit)
    return;
  struct gw_event ev = {.t_ns = t_ns, .kind = kind, .gpu = -1, .code = 0, .pid = pid};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ev.message, sizeof ev.message, fmt, ap);
  va_end(ap);
  gw_emit(events, &ev);
}

/* Is entry e a descendant of the tree? Walk up the parent chain until a
 * known answer, then record the answer along the whole path. */
static int resolve_membership(struct gw_host *h, size_t n, struct scan_entry *e) {
  struct scan_entry *path[GW_HOST_MAX_TREE_DEPTH];
  int depth = 0, answer = 2;
  struct scan_entry *cur = e;
  while (cur) {
    if (cur->membership != 0) {
      answer = cur->membership;
      break;
    }
    if (depth == GW_HOST_MAX_TREE_DEPTH)
      break; /* a parent loop in bad input: not a member */
    path[depth++] = cur;
    cur = cur->ppid > 0 ? scan_find(h, n, cur->ppid) : NULL;
  }
  for (int i = 0; i < depth; i++)
    path[i]->membership = answer;
  return answer;
}

/* Read every /proc/<pid>/stat and add the new descendants of the tree. */
static void rescan_procs(struct gw_host *h, int64_t t_ns, const struct gw_event_sink *events, struct gw_err *err) {
  DIR *d = opendir_at(h->root, "/proc");
  if (!d) {
    note(err, "cannot list /proc: %s", gw_strerror(errno));
    return;
  }
  size_t n = 0;
  int bad_notes = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    char path[64];
    struct gw_pid_stat st;
    struct gw_err perr = {{0}};
    if (!all_digits(de->d_name) || strlen(de->d_name) > 10)
      continue;
    if (snprintf(path, sizeof path, "/proc/%s/stat", de->d_name) >= (int)sizeof path)
      continue;
    int rc = read_pid_stat(h, path, NULL, &st, &perr);
    if (rc == -2 && bad_notes++ == 0)
      note(err, "%s: %s, skipped", path, perr.msg);
    if (rc != 0)
      continue; /* -1: the process ended since the listing */
    if (n == h->scan_cap) {
      h->scan_cap = h->scan_cap ? h->scan_cap * 2 : 1024;
      h->scan = gw_xrealloc(h->scan, h->scan_cap * sizeof *h->scan);
    }
    struct scan_entry *e = &h->scan[n++];
    *e = (struct scan_entry){.pid = st.pid, .ppid = st.ppid, .starttime_ticks = st.starttime_ticks};
    memcpy(e->comm, st.comm, sizeof e->comm);
  }
  closedir(d);
  if (n > 0)
    qsort(h->scan, n, sizeof *h->scan, scan_cmp);

  /* Seeds: the target, and every process already followed (still the same
   * process), so workers re-parented to init after a crash stay in. */
  struct scan_entry *target = scan_find(h, n, h->target_pid);
  if (target)
    target->membership = 1;
  else if (h->ntracked == 0)
    note(err, "target process %d not found under /proc", h->target_pid);
  for (int i = 0; i < h->ntracked; i++) {
    struct scan_entry *e = scan_find(h, n, h->tracked[i].pid);
    if (e && e->starttime_ticks == h->tracked[i].starttime_ticks)
      e->membership = 1;
  }
  /* The target first, so it leads the sample's process list. */
  if (target && find_tracked(h, target->pid) < 0 && h->ntracked < GW_HOST_MAX_PROCS) {
    h->tracked[h->ntracked++] = new_tracked(target->pid, target->starttime_ticks, target->comm);
  }
  int dropped = 0;
  for (size_t i = 0; i < n; i++) {
    struct scan_entry *e = &h->scan[i];
    if (resolve_membership(h, n, e) != 1 || find_tracked(h, e->pid) >= 0)
      continue;
    if (h->ntracked >= GW_HOST_MAX_PROCS) {
      dropped++;
      continue;
    }
    struct tracked_proc *t = &h->tracked[h->ntracked++];
    *t = new_tracked(e->pid, e->starttime_ticks, e->comm);
    /* The processes there at the first scan did not start now: no event. */
    if (h->initial_scan_done)
      emit_proc_event(events, t_ns, "proc_start", e->pid, "process %d (%s) started in the target's tree, parent %d",
                      e->pid, t->comm, e->ppid);
  }
  if (dropped)
    note(err, "process tree capped at %d processes: %d more not followed", GW_HOST_MAX_PROCS, dropped);
  h->initial_scan_done = 1;
  h->need_rescan = 0;
}

/* PyTorch names the autograd engine's device threads pt_autograd_0, 1, ...
 * (torch/csrc/autograd/engine.cpp, checked by its own tests): they run
 * backward and launch its kernels while the main thread waits in
 * loss.backward(). */
static int is_autograd_thread(const char *comm) {
  return strncmp(comm, "pt_autograd_", 12) == 0;
}

/* Threads of the main process in state R: a Python main thread at 100% shows
 * as one running thread that never sleeps. The same pass notes the autograd
 * threads in t (their set changes the launching threads' total, so its
 * baseline starts again). */
static int scan_threads(struct gw_host *h, struct tracked_proc *t) {
  char dir_path[64];
  if (snprintf(dir_path, sizeof dir_path, "/proc/%d/task", t->pid) >= (int)sizeof dir_path)
    return -1;
  DIR *d = opendir_at(h->root, dir_path);
  if (!d)
    return -1;
  int running = 0, autograd[GW_HOST_MAX_AUTOGRAD_THREADS], nautograd = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    char path[128];
    if (!all_digits(de->d_name) || strlen(de->d_name) > 10)
      continue;
    if (snprintf(path, sizeof path, "%s/%s/stat", dir_path, de->d_name) >= (int)sizeof path)
      continue;
    if (gw_read_file_at(h->root, path, h->pid_buf, sizeof h->pid_buf, NULL) < 0)
      continue; /* the thread ended */
    struct gw_pid_stat st;
    struct gw_err perr;
    if (gw_parse_pid_stat(h->pid_buf, &st, &perr) != 0)
      continue;
    if (st.state == 'R')
      running++;
    if (is_autograd_thread(st.comm) && st.pid != t->pid && nautograd < GW_HOST_MAX_AUTOGRAD_THREADS)
      autograd[nautograd++] = st.pid;
  }
  closedir(d);
  int same = nautograd == t->nautograd;
  for (int i = 0; same && i < nautograd; i++) {
    int found = 0;
    for (int k = 0; k < t->nautograd; k++)
      found |= t->autograd_tids[k] == autograd[i];
    same = found;
  }
  if (!same) {
    memcpy(t->autograd_tids, autograd, sizeof autograd[0] * (size_t)nautograd);
    t->nautograd = nautograd;
    t->has_launch_prev = 0;
  }
  return running;
}

/* CPU of the launching threads: the main thread's ticks (just read) plus
 * each autograd thread's. Unknown until an autograd thread has been seen:
 * without one the process's CPU stands in, as before. A thread that ended
 * leaves the set, and the total starts again from this sample. */
static void sample_launch_threads(struct gw_host *h, struct tracked_proc *t, int64_t t_ns, int main_read,
                                  struct gw_proc_sample *o) {
  o->launch_threads_cpu_pct = -1;
  if (t->nautograd == 0 || !main_read)
    return;
  uint64_t ticks = t->main_thread_ticks;
  int kept = 0;
  for (int i = 0; i < t->nautograd; i++) {
    char path[96];
    struct gw_pid_stat st;
    struct gw_err perr;
    if (snprintf(path, sizeof path, "/proc/%d/task/%d/stat", t->pid, t->autograd_tids[i]) >= (int)sizeof path ||
        read_pid_stat(h, path, NULL, &st, &perr) != 0 || !is_autograd_thread(st.comm))
      continue; /* ended (or its id reused by another thread) */
    t->autograd_tids[kept++] = t->autograd_tids[i];
    ticks += st.utime_ticks + st.stime_ticks;
  }
  if (kept != t->nautograd) {
    t->nautograd = kept;
    t->has_launch_prev = 0;
  }
  if (t->has_launch_prev && t->has_prev && t_ns > t->last_t_ns && ticks >= t->launch_ticks)
    o->launch_threads_cpu_pct =
        (double)(ticks - t->launch_ticks) / (double)h->clk_tck * 100.0 * 1e9 / (double)(t_ns - t->last_t_ns);
  t->launch_ticks = ticks;
  t->has_launch_prev = kept > 0;
}

/* CPU of the target's first thread: in a Python training job that is the
 * thread launching the kernels, so 100% here means launch-bound. */
static int sample_main_thread(struct gw_host *h, struct tracked_proc *t, int64_t t_ns, struct gw_proc_sample *o) {
  char path[96];
  struct gw_pid_stat st;
  struct gw_err perr;
  if (snprintf(path, sizeof path, "/proc/%d/task/%d/stat", t->pid, t->pid) >= (int)sizeof path)
    return 0;
  if (read_pid_stat(h, path, &t->main_thread_stat_fd, &st, &perr) != 0)
    return 0;
  uint64_t ticks = st.utime_ticks + st.stime_ticks;
  if (t->has_main_prev && t->has_prev && t_ns > t->last_t_ns && ticks >= t->main_thread_ticks)
    o->main_thread_cpu_pct =
        (double)(ticks - t->main_thread_ticks) / (double)h->clk_tck * 100.0 * 1e9 / (double)(t_ns - t->last_t_ns);
  t->main_thread_ticks = ticks;
  t->has_main_prev = 1;
  return 1;
}

static void sample_procs(struct gw_host *h, int64_t t_ns, int rescan, struct gw_host_sample *out,
                         const struct gw_event_sink *events, struct gw_err *err) {
  out->procs = h->proc_out;
  out->nprocs = 0;
  if (h->target_pid <= 0)
    return;
  if (rescan || h->need_rescan)
    rescan_procs(h, t_ns, events, err);
  int kept = 0, bad_notes = 0;
  for (int i = 0; i < h->ntracked; i++) {
    struct tracked_proc t = h->tracked[i];
    char path[64];
    struct gw_pid_stat st;
    struct gw_err perr = {{0}};
    if (snprintf(path, sizeof path, "/proc/%d/stat", t.pid) >= (int)sizeof path)
      continue;
    int rc = read_pid_stat(h, path, &t.stat_fd, &st, &perr);
    if (rc == -1 && errno != ENOENT && errno != ESRCH) {
      h->tracked[kept++] = t; /* unreadable for another reason: keep following */
      continue;
    }
    if (rc == -2) {
      if (bad_notes++ == 0)
        note(err, "%s: %s, skipped", path, perr.msg);
      h->tracked[kept++] = t;
      continue;
    }
    if (rc == -1 || st.starttime_ticks != t.starttime_ticks) {
      emit_proc_event(events, t_ns, "proc_exit", t.pid, "%s %d (%s) exited",
                      t.pid == h->target_pid ? "target process" : "process", t.pid, t.comm);
      forget_tracked(&t);
      continue;
    }
    struct gw_proc_sample *o = &h->proc_out[out->nprocs++];
    uint64_t ticks = st.utime_ticks + st.stime_ticks;
    o->pid = st.pid;
    o->ppid = st.ppid;
    o->role = st.pid == h->target_pid ? GW_ROLE_TARGET : GW_ROLE_CHILD;
    gw_strlcpy(o->comm, st.comm, sizeof o->comm);
    o->state = st.state;
    o->cpu_pct = -1;
    if (t.has_prev && t_ns > t.last_t_ns && ticks >= t.cpu_ticks)
      o->cpu_pct = (double)(ticks - t.cpu_ticks) / (double)h->clk_tck * 100.0 * 1e9 / (double)(t_ns - t.last_t_ns);
    o->threads = st.num_threads;
    /* A page count no real process has (damaged or hostile /proc) is unknown, not an overflow. */
    o->rss_bytes = st.rss_pages >= 0 && st.rss_pages <= INT64_MAX / h->page_size ? st.rss_pages * h->page_size : -1;
    /* Counting running threads reads every task: only on rescan ticks. */
    o->threads_running = o->role == GW_ROLE_TARGET && rescan ? scan_threads(h, &t) : -1;
    o->main_thread_cpu_pct = -1;
    o->launch_threads_cpu_pct = -1;
    if (o->role == GW_ROLE_TARGET)
      sample_launch_threads(h, &t, t_ns, sample_main_thread(h, &t, t_ns, o), o);
    gw_strlcpy(t.comm, st.comm, sizeof t.comm);
    t.cpu_ticks = ticks;
    t.last_t_ns = t_ns;
    t.has_prev = 1;
    h->tracked[kept++] = t;
  }
  h->ntracked = kept;
}

/* ---- the tick ---- */

gw_status gw_host_sample(struct gw_host *h, int64_t t_ns, unsigned what, struct gw_host_sample *out,
                         const struct gw_event_sink *events, struct gw_err *err) {
  int rescan_procs_flag = (what & GW_HOST_RESCAN) != 0;
  int slow = !(what & GW_HOST_SKIP_SLOW);
  if (!h || !out) {
    gw_err_set(err, "gw_host_sample: no sampler or no output");
    return GW_ERR;
  }
  if (err)
    err->msg[0] = '\0';
  memset(out, 0, sizeof *out);
  out->t_ns = t_ns;
  out->cores = h->core_out;
  out->procs = h->proc_out;
  out->disks = h->disk_out;
  int64_t dt_ns = h->have_prev_t ? t_ns - h->prev_t_ns : 0;
  if (h->have_prev_t && dt_ns <= 0)
    note(err,
         "sample time did not advance (%lld ns since the last one): rates "
         "skipped",
         (long long)dt_ns);
  sample_cpu(h, out, dt_ns, slow, err);
  if (slow) {
    sample_mem(h, out, err);
    sample_load(h, out, err);
    sample_psi(h, out, t_ns, err);
    sample_power(h, out);
    sample_governor(h, out);
  }
  if (rescan_procs_flag)
    load_block_list(h);
  if (slow) { /* iostat -x's figures over a second, like iostat itself */
    sample_disks(h, out, h->have_prev_disk_t ? t_ns - h->prev_disk_t_ns : 0, err);
    h->prev_disk_t_ns = t_ns;
    h->have_prev_disk_t = 1;
  }
  sample_procs(h, t_ns, rescan_procs_flag, out, events, err);
  h->prev_t_ns = t_ns;
  h->have_prev_t = 1;
  return GW_OK;
}

/* ---- static facts ---- */

struct core_key {
  int64_t physical_id, core_id;
};

struct core_set {
  int n, cap;
  struct core_key *keys;
};

static void core_set_add(struct core_set *s, int64_t phys, int64_t core) {
  for (int i = 0; i < s->n; i++)
    if (s->keys[i].physical_id == phys && s->keys[i].core_id == core)
      return;
  if (s->n == s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->keys = gw_xrealloc(s->keys, (size_t)s->cap * sizeof *s->keys);
  }
  s->keys[s->n++] = (struct core_key){phys, core};
}

/* /proc/cpuinfo: blocks of "key<tabs>: value" lines, one block per logical
 * CPU, separated by blank lines. Physical cores are the distinct
 * (physical id, core id) pairs; unknown when any block lacks them. */
static void parse_cpuinfo(const char *text, struct gw_host_info *out) {
  int logical = 0, in_block = 0, ids_complete = 1;
  int64_t phys = -1, core = -1;
  struct core_set cores = {0};
  for (const char *line = text;;) {
    const char *nl = strchr(line, '\n');
    size_t len = nl ? (size_t)(nl - line) : strlen(line);
    if (len == 0) {
      if (in_block) {
        if (phys >= 0 && core >= 0)
          core_set_add(&cores, phys, core);
        else
          ids_complete = 0;
      }
      in_block = 0;
      phys = core = -1;
      if (!nl)
        break;
      line = nl + 1;
      continue;
    }
    const char *colon = memchr(line, ':', len);
    size_t key_len = colon ? (size_t)(colon - line) : 0;
    while (key_len > 0 && (line[key_len - 1] == ' ' || line[key_len - 1] == '\t'))
      key_len--;
    char value[256] = "";
    if (colon) {
      const char *v = colon + 1;
      while (v < line + len && (*v == ' ' || *v == '\t'))
        v++;
      size_t vlen = (size_t)(line + len - v);
      if (vlen >= sizeof value)
        vlen = sizeof value - 1;
      memcpy(value, v, vlen);
      value[vlen] = '\0';
    }
    int64_t num;
    if (key_len == 9 && strncmp(line, "processor", 9) == 0) {
      logical++;
      in_block = 1;
    } else if ((key_len == 10 && strncmp(line, "model name", 10) == 0) ||
               (key_len == 5 && strncmp(line, "Model", 5) == 0)) {
      if (!out->cpu_model[0])
        gw_strlcpy(out->cpu_model, value, sizeof out->cpu_model);
    } else if (key_len == 11 && strncmp(line, "physical id", 11) == 0 && gw_parse_i64(value, &num) == 0) {
      phys = num;
    } else if (key_len == 7 && strncmp(line, "core id", 7) == 0 && gw_parse_i64(value, &num) == 0) {
      core = num;
    }
    if (!nl) {
      line = ""; /* close the last block as if a blank line followed */
      continue;
    }
    line = nl + 1;
  }
  out->logical_cpus = logical;
  out->physical_cores = (cores.n > 0 && ids_complete) ? cores.n : -1;
  free(cores.keys);
}

void gw_host_info(struct gw_host *h, struct gw_host_info *out) {
  if (!out)
    return;
  memset(out, 0, sizeof *out);
  out->logical_cpus = -1;
  out->physical_cores = -1;
  out->mem_total_bytes = -1;
  if (!h)
    return;
  int live = is_live_root(h->root);
  struct utsname uts;
  int have_uts = live && uname(&uts) == 0;
  if (read_line_at(h->root, "/proc/sys/kernel/hostname", out->hostname, sizeof out->hostname) != 0 && have_uts)
    gw_strlcpy(out->hostname, uts.nodename, sizeof out->hostname);
  if (read_line_at(h->root, "/proc/sys/kernel/osrelease", out->kernel, sizeof out->kernel) != 0 && have_uts)
    gw_strlcpy(out->kernel, uts.release, sizeof out->kernel);

  /* A buffer that doubles while the file fills it, up to the cap: cpuinfo
   * is some 1.5 KiB a logical CPU, and taking the full 8 MiB cost more than
   * the rest of a small host's sample. /proc files have no size to ask. */
  char *cpuinfo = NULL;
  long cpuinfo_len = -1;
  for (size_t cap = 64 * 1024;; cap *= 2) {
    int truncated = 0;
    cpuinfo = gw_xrealloc(cpuinfo, cap);
    cpuinfo_len = gw_read_file_at(h->root, "/proc/cpuinfo", cpuinfo, cap, &truncated);
    if (cpuinfo_len < 0 || !truncated || cap >= GW_HOST_CPUINFO_CAP)
      break;
  }
  if (cpuinfo_len >= 0)
    parse_cpuinfo(cpuinfo, out);
  free(cpuinfo);
  if (out->logical_cpus <= 0 && gw_read_file_at(h->root, "/proc/stat", h->buf, GW_HOST_READ_CAP, NULL) >= 0) {
    /* No "processor" lines (some ARM kernels): count cpuN lines instead. */
    struct gw_cpu_ticks total;
    int online = 0;
    int n = gw_parse_proc_stat(h->buf, &total, h->cur_cores, h->cores_cap, NULL);
    for (int c = 0; c < n && c < h->cores_cap; c++)
      online += ticks_present(&h->cur_cores[c]);
    out->logical_cpus = online > 0 ? online : -1;
  }

  struct gw_host_sample mem;
  memset(&mem, 0, sizeof mem);
  sample_mem(h, &mem, NULL);
  out->mem_total_bytes = mem.mem_total_bytes;
}
