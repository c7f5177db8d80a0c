/* Thread sampler (see thread_sampler.h). The ring is single-producer
 * (the sampler's thread) single-consumer (the recorder's): two atomic
 * counters, no lock, so a slow store never stalls the sampling. */
#include "thread_sampler.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../core/activity.h"
#include "host.h"

#define TS_MAX_PROCS 256 /* the host source follows at most as many */
#define TS_MAX_THREADS 8192
#define TS_RING_ROWS 65536 /* 3 MB; at 20 Hz x 100 threads that is 30 s of rows for a stalled store */
#define TS_FD_CACHE 32     /* fds a process blocks in at once: a few sockets and pipes */
#define TS_CMDLINE_CAP 512
#define TS_STAT_CAP 1024 /* one thread's stat line is about 300 bytes */
#define TS_SYSCALL_CAP 256
#define TS_SETTLE_NS 1000000000LL /* a thread's first second: read fully (see sample_thread) */
#define TS_CPU_EVERY 4            /* a busy thread's CPU time at every 4th sample (5 a second at 20 Hz) */

struct fd_cache_entry {
  int fd;
  uint8_t kind; /* enum gw_fd_kind */
};

struct ts_proc {
  int pid, ppid;
  char comm[32];
  char cmdline[TS_CMDLINE_CAP];
  size_t cmdline_len;
  int cmdline_read;
  int kind; /* enum gw_proc_kind */
  int listed;
  int syscall_denied; /* its syscall files are not ours to read: waits from wchan */
  int nfd;
  struct fd_cache_entry fds[TS_FD_CACHE];
};

struct ts_thread {
  int tid, pid;
  int stat_fd, syscall_fd, wchan_fd, schedstat_fd; /* live only; -1 closed */
  /* /proc/.../schedstat (2 us to read where stat takes 8): the CPU time in
   * ns and how many times the thread was put on a CPU, to tell a thread that
   * has not run since the last sample (same state, same call) */
  int have_sched;            /* 1 read at the last sample */
  uint64_t exec_ns, runs;    /* at the last schedstat read */
  int ran_recently;          /* put on a CPU between the last two schedstat reads */
  struct gw_thread_row last; /* the last sample */
  int role;
  char comm[16];
  int64_t first_t_ns;
  int info_sent; /* an INFO row with this role and comm is in the ring */
  int seen;      /* listed by the last task rescan */
  int gone;      /* its stat read failed: the thread ended */
};

struct gw_thread_sampler {
  char *root;
  int live;
  int hz;
  long clk_tck;
  long tick;
  int rescan_needed;

  /* descriptors kept open for the next read, at most fds_budget: a job of
   * many threads must not take the descriptors the rest of the recorder
   * (its database, the GPU's device files) needs; past it, files are
   * opened for each read */
  int fds_kept, fds_budget;

  int nprocs;
  struct ts_proc procs[TS_MAX_PROCS];
  int nthreads;
  struct ts_thread *threads;

  /* the process list handed over by another thread */
  pthread_mutex_t pending_lock;
  unsigned pending_gen, applied_gen;
  int npending;
  struct gw_proc_sample pending[TS_MAX_PROCS];

  /* the ring */
  struct gw_thread_row *ring;
  _Atomic size_t head, tail;
  _Atomic uint64_t dropped;

  /* the note: written once by the sampler, then note_set */
  char note[256];
  _Atomic int note_set;

  pthread_t thread;
  int started;
  _Atomic int stop;
};

/* ---- pure parts ---- */

int gw_thread_state_of(char state) {
  switch (state) {
  case 'R':
    return GW_TSTATE_RUNNING;
  case 'S':
  case 'I': /* idle kernel-style sleep */
    return GW_TSTATE_SLEEPING;
  case 'D':
    return GW_TSTATE_DISK;
  case 'T':
  case 't':
    return GW_TSTATE_STOPPED;
  case '\0':
    return GW_TSTATE_UNKNOWN;
  default:
    return GW_TSTATE_OTHER;
  }
}

int gw_parse_syscall_line(const char *text, long *nr, uint64_t *arg0) {
  *nr = -1;
  *arg0 = 0;
  if (!text)
    return -1;
  if (strncmp(text, "running", 7) == 0)
    return 1;
  char *end;
  errno = 0;
  long n = strtol(text, &end, 10);
  if (end == text || errno || (*end != ' ' && *end != '\n' && *end != '\0') || n < -1 || n > 4095)
    return -1;
  *nr = n;
  if (n >= 0) {
    const char *p = end;
    while (*p == ' ')
      p++;
    unsigned long long a = strtoull(p, &end, 16); /* "0x5": strtoull takes the prefix in base 16 */
    if (end == p)
      return -1;
    *arg0 = a;
  }
  return 0;
}

enum gw_fd_kind gw_fd_kind_of_link(const char *link) {
  if (!link || !*link)
    return GW_FD_UNKNOWN;
  if (strncmp(link, "socket:", 7) == 0)
    return GW_FD_SOCKET;
  if (strncmp(link, "pipe:", 5) == 0)
    return GW_FD_PIPE;
  if (strncmp(link, "/dev/nvidia", 11) == 0)
    return GW_FD_NVIDIA;
  if (strncmp(link, "/dev/", 5) == 0 || link[0] != '/')
    return GW_FD_OTHER; /* ttys, eventfds and other anon_inodes */
  return GW_FD_FILE;
}

static int nr_in(long nr, const long *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (list[i] == nr)
      return 1;
  return 0;
}
#define NR_IN(nr, list) nr_in(nr, list, sizeof list / sizeof list[0])

/* The numbers are the build machine's (<sys/syscall.h>): the recorder reads
 * its own kernel. Calls missing on an architecture (poll, select on arm64)
 * are left out there. */
static const long futex_calls[] = {
    SYS_futex,
#ifdef SYS_futex_waitv
    SYS_futex_waitv,
#endif
};
static const long poll_calls[] = {
#ifdef SYS_poll
    SYS_poll,
#endif
#ifdef SYS_select
    SYS_select,
#endif
#ifdef SYS_epoll_wait
    SYS_epoll_wait,
#endif
#ifdef SYS_epoll_pwait2
    SYS_epoll_pwait2,
#endif
    SYS_ppoll,        SYS_pselect6, SYS_epoll_pwait,
};
static const long sleep_calls[] = {
#ifdef SYS_nanosleep
    SYS_nanosleep,
#endif
    SYS_clock_nanosleep,
};
static const long net_calls[] = {
    SYS_recvfrom, SYS_recvmsg, SYS_recvmmsg, SYS_sendto, SYS_sendmsg, SYS_accept4, SYS_connect,
#ifdef SYS_accept
    SYS_accept,
#endif
};
/* read or write on an fd: what waits depends on the fd */
static const long fd_io_calls[] = {SYS_read,   SYS_readv,    SYS_pread64, SYS_preadv, SYS_write,
                                   SYS_writev, SYS_pwrite64, SYS_pwritev, SYS_ioctl};
static const long file_calls[] = {
#ifdef SYS_open
    SYS_open,
#endif
    SYS_openat, SYS_fsync, SYS_fdatasync, SYS_sync_file_range,
};

/* calls that put bytes or names on a file system: a thread held in them on
 * the disk is saving something, not reading its input */
static const long file_write_calls[] = {
    SYS_write,     SYS_writev,          SYS_pwrite64, SYS_pwritev,  SYS_fsync,
    SYS_fdatasync, SYS_sync_file_range, SYS_renameat, SYS_unlinkat, SYS_ftruncate,
#ifdef SYS_rename
    SYS_rename,
#endif
#ifdef SYS_renameat2
    SYS_renameat2,
#endif
#ifdef SYS_unlink
    SYS_unlink,
#endif
};

int gw_syscall_writes_files(long nr) {
  return nr >= 0 && NR_IN(nr, file_write_calls);
}

int gw_syscall_waits_on_fd(long nr) {
  return nr >= 0 && NR_IN(nr, fd_io_calls);
}

int gw_wait_kind_of_syscall(char state, long nr, enum gw_fd_kind fd) {
  if (state == 'R')
    return GW_WAIT_NONE;
  if (nr == SYS_ioctl && fd == GW_FD_NVIDIA)
    return GW_WAIT_GPU; /* a CUDA call waiting in the driver, whatever the state */
  if (state == 'D')
    return GW_WAIT_DISK;
  if (nr < 0)
    return GW_WAIT_OTHER;
  if (NR_IN(nr, futex_calls))
    return GW_WAIT_FUTEX;
  if (NR_IN(nr, poll_calls))
    return GW_WAIT_POLL;
  if (NR_IN(nr, sleep_calls))
    return GW_WAIT_SLEEP;
  if (NR_IN(nr, net_calls))
    return GW_WAIT_NET;
  if (NR_IN(nr, file_calls))
    return GW_WAIT_DISK;
  if (NR_IN(nr, fd_io_calls)) {
    switch (fd) {
    case GW_FD_SOCKET:
      return GW_WAIT_NET;
    case GW_FD_PIPE:
      return GW_WAIT_PIPE;
    case GW_FD_FILE:
      return nr == SYS_ioctl ? GW_WAIT_OTHER : GW_WAIT_DISK;
    case GW_FD_NVIDIA:
      return GW_WAIT_GPU;
    default:
      return GW_WAIT_OTHER;
    }
  }
  return GW_WAIT_OTHER;
}

int gw_wait_kind_of_wchan(char state, const char *wchan) {
  if (state == 'R')
    return GW_WAIT_NONE;
  if (!wchan)
    wchan = "";
  if (strstr(wchan, "nvidia") || strncmp(wchan, "nv", 2) == 0)
    return GW_WAIT_GPU;
  if (state == 'D')
    return GW_WAIT_DISK;
  if (strstr(wchan, "futex"))
    return GW_WAIT_FUTEX;
  if (strstr(wchan, "poll") || strstr(wchan, "select"))
    return GW_WAIT_POLL; /* do_sys_poll, do_epoll_wait, do_select */
  if (strstr(wchan, "pipe"))
    return GW_WAIT_PIPE;
  if (strstr(wchan, "sk_wait") || strstr(wchan, "sock") || strstr(wchan, "tcp") || strstr(wchan, "unix_") ||
      strstr(wchan, "skb_") || strstr(wchan, "inet_"))
    return GW_WAIT_NET;
  if (strstr(wchan, "nanosleep") || strstr(wchan, "hrtimer"))
    return GW_WAIT_SLEEP;
  if (strstr(wchan, "io_schedule") || strstr(wchan, "folio_wait") || strstr(wchan, "blk") ||
      strstr(wchan, "wait_on_page"))
    return GW_WAIT_DISK;
  return GW_WAIT_OTHER;
}

/* argv[0]'s last path part, from NUL-separated cmdline bytes. */
static const char *argv0_base(const char *cmdline, size_t len, char *buf, size_t cap) {
  size_t n = strnlen(cmdline, len);
  if (n >= cap)
    n = cap - 1;
  memcpy(buf, cmdline, n);
  buf[n] = '\0';
  const char *slash = strrchr(buf, '/');
  return slash ? slash + 1 : buf;
}

static int cmdline_has(const char *cmdline, size_t len, const char *what) {
  size_t w = strlen(what);
  for (size_t i = 0; i + w <= len; i++)
    if (memcmp(cmdline + i, what, w) == 0)
      return 1;
  return 0;
}

int gw_proc_kind_of(const char *comm, const char *cmdline, size_t len, const char *parent_cmdline, size_t parent_len) {
  if (!comm)
    comm = "";
  if (!cmdline)
    len = 0;
  /* PyTorch names a DataLoader worker's thread pt_data_worker (its worker loop) */
  if (strncmp(comm, "pt_data_worker", 14) == 0)
    return GW_PROC_WORKER;
  char buf[256];
  const char *argv0 = len ? argv0_base(cmdline, len, buf, sizeof buf) : "";
  /* PyTorch renames a process's main thread pt_main_thread; a script run
   * through its shebang has the script's name as comm, python as argv[0] */
  int python =
      strncmp(comm, "python", 6) == 0 || strcmp(comm, "pt_main_thread") == 0 || strncmp(argv0, "python", 6) == 0;
  if (!python)
    return GW_PROC_OTHER;
  if (strcmp(comm, "torchrun") == 0 || cmdline_has(cmdline, len, "torch.distributed.run") ||
      cmdline_has(cmdline, len, "torch.distributed.launch") ||
      cmdline_has(cmdline, len, "multiprocessing.resource_tracker") ||
      cmdline_has(cmdline, len, "multiprocessing.forkserver"))
    return GW_PROC_PY_AUXILIARY;
  /* A fork of a Python process of the job keeps its parent's command line:
   * DataLoader workers under the fork start method (Linux's default) before
   * PyTorch named them. Ranks are started afresh (torchrun, mp.spawn), with
   * a command line of their own. */
  if (parent_cmdline && len > 0 && parent_len == len && memcmp(parent_cmdline, cmdline, len) == 0)
    return GW_PROC_WORKER;
  return GW_PROC_PYTHON;
}

int gw_thread_role_of(const char *comm, int is_main, int proc_kind) {
  if (!comm)
    comm = "";
  if (is_main) {
    switch (proc_kind) {
    case GW_PROC_WORKER:
      return GW_TROLE_LOADER_WORKER;
    case GW_PROC_PYTHON:
      return GW_TROLE_MAIN;
    default:
      return GW_TROLE_HELPER;
    }
  }
  if (strncmp(comm, "pt_autograd_", 12) == 0)
    return GW_TROLE_AUTOGRAD;
  /* pt_data_pin: PyTorch's name for the DataLoader's pin-memory thread */
  if (strncmp(comm, "pt_data_pin", 11) == 0 || strncmp(comm, "pt_pin_memory", 13) == 0)
    return GW_TROLE_PIN_MEMORY;
  if (strncasecmp(comm, "nccl", 4) == 0)
    return GW_TROLE_NCCL;
  return GW_TROLE_HELPER;
}

/* ---- reading ---- */

static void set_note(struct gw_thread_sampler *s, const char *fmt, ...) GW_PRINTF(2, 3);
static void set_note(struct gw_thread_sampler *s, const char *fmt, ...) {
  if (atomic_load_explicit(&s->note_set, memory_order_relaxed))
    return; /* said once */
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(s->note, sizeof s->note, fmt, ap);
  va_end(ap);
  atomic_store_explicit(&s->note_set, 1, memory_order_release);
}

/* Read a /proc file into buf (NUL-terminated). Live: through a descriptor
 * kept open (*fd, -1 until opened) and one pread at offset 0; a second pread
 * to find the end would make the kernel generate the text again. A fixture
 * root: opened by path each time, so tests may change the files. -1 with
 * errno; a failed read closes the descriptor (ESRCH: the thread is gone). */
static long read_proc(struct gw_thread_sampler *s, int *fd, const char *path, char *buf, size_t cap) {
  if (!s->live)
    return gw_read_file_at(s->root, path, buf, cap, NULL);
  int use = *fd;
  if (use < 0) {
    use = open(path, O_RDONLY | O_CLOEXEC);
    if (use < 0)
      return -1;
    if (s->fds_kept < s->fds_budget) {
      *fd = use;
      s->fds_kept++;
    }
  }
  ssize_t r;
  do
    r = pread(use, buf, cap - 1, 0);
  while (r < 0 && errno == EINTR);
  int saved = errno;
  if (r < 0 || use != *fd) {
    close(use);
    if (use == *fd) {
      *fd = -1;
      s->fds_kept--;
    }
  }
  errno = saved;
  if (r < 0)
    return -1;
  buf[r] = '\0';
  return (long)r;
}

/* read_proc for /proc/PID/task/TID/NAME. The path is formatted only where
 * it is opened (the first read, or a fixture root): a sample reads two or
 * three files of each thread 20 times a second through open descriptors. */
static long read_task_file(struct gw_thread_sampler *s, const struct ts_thread *t, int *fd, const char *name, char *buf,
                           size_t cap) {
  char path[96] = "";
  if (!s->live || *fd < 0)
    snprintf(path, sizeof path, "/proc/%d/task/%d/%s", t->pid, t->tid, name);
  return read_proc(s, fd, path, buf, cap);
}

static void close_fd(struct gw_thread_sampler *s, int *fd) {
  if (*fd >= 0) {
    close(*fd);
    s->fds_kept--;
  }
  *fd = -1;
}

/* An open that failed for want of descriptors, not because the file or
 * its thread is gone. */
static int out_of_fds(int e) {
  return e == EMFILE || e == ENFILE || e == ENOMEM;
}

static void forget_thread(struct gw_thread_sampler *s, struct ts_thread *t) {
  close_fd(s, &t->stat_fd);
  close_fd(s, &t->syscall_fd);
  close_fd(s, &t->wchan_fd);
  close_fd(s, &t->schedstat_fd);
}

static struct ts_proc *find_proc(struct gw_thread_sampler *s, int pid) {
  for (int i = 0; i < s->nprocs; i++)
    if (s->procs[i].pid == pid)
      return &s->procs[i];
  return NULL;
}

static void read_cmdline(struct gw_thread_sampler *s, struct ts_proc *p) {
  char path[64];
  p->cmdline_read = 1;
  p->cmdline_len = 0;
  snprintf(path, sizeof path, "/proc/%d/cmdline", p->pid);
  char full[4096];
  if (gw_path_at(s->root, path, full, sizeof full) != 0)
    return;
  int fd = open(full, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return;
  ssize_t r = read(fd, p->cmdline, sizeof p->cmdline);
  close(fd);
  if (r > 0)
    p->cmdline_len = (size_t)r;
}

static void classify_procs(struct gw_thread_sampler *s) {
  for (int i = 0; i < s->nprocs; i++) {
    struct ts_proc *p = &s->procs[i];
    if (!p->cmdline_read)
      read_cmdline(s, p);
  }
  for (int i = 0; i < s->nprocs; i++) {
    struct ts_proc *p = &s->procs[i];
    const struct ts_proc *parent = find_proc(s, p->ppid);
    p->kind = gw_proc_kind_of(p->comm, p->cmdline, p->cmdline_len, parent ? parent->cmdline : NULL,
                              parent ? parent->cmdline_len : 0);
  }
}

static struct ts_proc *add_proc(struct gw_thread_sampler *s, int pid, int ppid, const char *comm) {
  struct ts_proc *p = find_proc(s, pid);
  if (p || s->nprocs >= TS_MAX_PROCS)
    return p;
  p = &s->procs[s->nprocs++];
  memset(p, 0, sizeof *p);
  p->pid = pid;
  p->ppid = ppid;
  gw_strlcpy(p->comm, comm, sizeof p->comm);
  p->listed = 1;
  s->rescan_needed = 1;
  return p;
}

/* Take the process list handed over, if a new one came. Processes leave
 * when their task list is gone (rescan_tasks), not when a list lacks them:
 * the sampler finds new children itself, sooner than the host's rescans. */
static void apply_pending(struct gw_thread_sampler *s) {
  if (pthread_mutex_trylock(&s->pending_lock) != 0)
    return; /* being handed over now: next tick */
  if (s->pending_gen != s->applied_gen) {
    s->applied_gen = s->pending_gen;
    for (int k = 0; k < s->npending; k++)
      if (s->pending[k].pid > 0)
        add_proc(s, s->pending[k].pid, s->pending[k].ppid, s->pending[k].comm);
  }
  pthread_mutex_unlock(&s->pending_lock);
}

/* New children of a thread of p (/proc/PID/task/TID/children, kernels with
 * CONFIG_PROC_CHILDREN): a DataLoader's workers are found within a second,
 * where the host source looks through all of /proc every two. */
static void add_children(struct gw_thread_sampler *s, const struct ts_proc *p, long tid) {
  char path[96], buf[1024];
  snprintf(path, sizeof path, "/proc/%d/task/%ld/children", p->pid, tid);
  if (gw_read_file_at(s->root, path, buf, sizeof buf, NULL) <= 0)
    return;
  int ppid = p->pid; /* p may move when the array grows: copy what is needed */
  for (char *tok = buf, *end;; tok = end) {
    long child = strtol(tok, &end, 10);
    if (end == tok || child <= 0 || child > INT32_MAX)
      break;
    add_proc(s, (int)child, ppid, "");
  }
}

static struct ts_thread *find_thread(struct gw_thread_sampler *s, int tid) {
  for (int i = 0; i < s->nthreads; i++)
    if (s->threads[i].tid == tid)
      return &s->threads[i];
  return NULL;
}

/* Re-read every process's task list: new threads in, ended ones (and
 * ended processes) out, new children added for the next tick. */
static void rescan_tasks(struct gw_thread_sampler *s, int64_t t_ns) {
  classify_procs(s);
  for (int i = 0; i < s->nthreads; i++)
    s->threads[i].seen = 0;
  int capped = 0, nscan = s->nprocs;
  for (int i = 0; i < nscan; i++) {
    char path[64], full[4096];
    snprintf(path, sizeof path, "/proc/%d/task", s->procs[i].pid);
    DIR *d = gw_path_at(s->root, path, full, sizeof full) == 0 ? opendir(full) : NULL;
    if (!d && out_of_fds(errno)) {
      /* no descriptor to list it with: keep the process and its threads
       * as they were until a rescan can list them */
      s->procs[i].listed = 1;
      for (int k = 0; k < s->nthreads; k++)
        if (s->threads[k].pid == s->procs[i].pid)
          s->threads[k].seen = 1;
      set_note(s, "thread samples skipped: the recorder ran out of file descriptors (%s; ulimit -n)", strerror(errno));
      continue;
    }
    s->procs[i].listed = d != NULL; /* no task list: the process ended */
    if (!d)
      continue;
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
      char *end;
      long tid = strtol(de->d_name, &end, 10);
      if (de->d_name[0] < '0' || de->d_name[0] > '9' || *end || tid <= 0 || tid > INT32_MAX)
        continue;
      struct ts_thread *t = find_thread(s, (int)tid);
      if (t && t->pid != s->procs[i].pid) {
        forget_thread(s, t); /* a reused id in another process: a new thread */
        t->tid = 0;
        t = NULL;
      }
      if (!t) {
        if (s->nthreads >= TS_MAX_THREADS) {
          capped++;
          continue;
        }
        t = &s->threads[s->nthreads++];
        *t = (struct ts_thread){.tid = (int)tid,
                                .pid = s->procs[i].pid,
                                .stat_fd = -1,
                                .syscall_fd = -1,
                                .wchan_fd = -1,
                                .schedstat_fd = -1,
                                .role = -1,
                                .first_t_ns = t_ns};
      }
      t->seen = 1;
      /* DataLoader workers, ranks and compile workers are started by their
       * process's main thread; children of other threads (rarer) come with
       * the host source's scans of /proc, every two seconds. One read per
       * process a second instead of one per thread. */
      if (tid == s->procs[i].pid)
        add_children(s, &s->procs[i], tid);
    }
    closedir(d);
  }
  int added = s->nprocs - nscan, kept = 0;
  for (int i = 0; i < s->nprocs; i++)
    if (i >= nscan || s->procs[i].listed)
      s->procs[kept++] = s->procs[i];
  s->nprocs = kept;
  kept = 0;
  for (int i = 0; i < s->nthreads; i++) {
    struct ts_thread *t = &s->threads[i];
    if (!t->seen || t->gone || t->tid == 0) {
      forget_thread(s, t);
      continue;
    }
    s->threads[kept++] = *t;
  }
  s->nthreads = kept;
  if (capped)
    set_note(s, "more than %d threads in the job: %d not sampled", TS_MAX_THREADS, capped);
  /* fds are reused for other files: look them up afresh each rescan */
  for (int i = 0; i < s->nprocs; i++)
    s->procs[i].nfd = 0;
  s->rescan_needed = added > 0; /* their threads at the next tick */
}

static void push_row(struct gw_thread_sampler *s, const struct gw_thread_row *row) {
  size_t head = atomic_load_explicit(&s->head, memory_order_relaxed);
  size_t tail = atomic_load_explicit(&s->tail, memory_order_acquire);
  if (head - tail >= TS_RING_ROWS) {
    atomic_fetch_add_explicit(&s->dropped, 1, memory_order_relaxed);
    return;
  }
  s->ring[head & (TS_RING_ROWS - 1)] = *row;
  atomic_store_explicit(&s->head, head + 1, memory_order_release);
}

/* A system call read on the cheap path that did not settle the sample (a
 * file read may be in D: stat says), kept for the full read that follows. */
struct syscall_read {
  int have;
  long nr;
  uint64_t arg0;
};

static enum gw_fd_kind fd_kind(struct gw_thread_sampler *s, struct ts_proc *p, int fd) {
  for (int i = 0; i < p->nfd; i++)
    if (p->fds[i].fd == fd)
      return (enum gw_fd_kind)p->fds[i].kind;
  char path[64], full[4096], link[256];
  snprintf(path, sizeof path, "/proc/%d/fd/%d", p->pid, fd);
  enum gw_fd_kind kind = GW_FD_UNKNOWN;
  if (gw_path_at(s->root, path, full, sizeof full) == 0) {
    ssize_t n = readlink(full, link, sizeof link - 1);
    if (n > 0) {
      link[n] = '\0';
      kind = gw_fd_kind_of_link(link);
    }
  }
  if (p->nfd < TS_FD_CACHE)
    p->fds[p->nfd++] = (struct fd_cache_entry){fd, (uint8_t)kind};
  return kind;
}

/* The wait of a thread that is not running: its system call, else its wchan. */
static int read_wait(struct gw_thread_sampler *s, struct ts_thread *t, struct ts_proc *p, char state, int16_t *nr_out,
                     const struct syscall_read *pre) {
  char buf[TS_SYSCALL_CAP];
  *nr_out = -1;
  if (p && pre->have) { /* read a moment ago on the cheap path */
    enum gw_fd_kind fk =
        gw_syscall_waits_on_fd(pre->nr) && pre->arg0 < 1u << 30 ? fd_kind(s, p, (int)pre->arg0) : GW_FD_UNKNOWN;
    *nr_out = (int16_t)pre->nr;
    return gw_wait_kind_of_syscall(state, pre->nr, fk);
  }
  if (p && !p->syscall_denied) {
    long nr;
    uint64_t arg0;
    long len = read_task_file(s, t, &t->syscall_fd, "syscall", buf, sizeof buf);
    if (len < 0 && (errno == EACCES || errno == EPERM || errno == ENOENT)) {
      /* reading a thread's system call needs ptrace rights over it (another
       * user's process under --pid, or a kernel without the file) */
      p->syscall_denied = 1;
      set_note(s, "system calls of process %d (%s) unreadable: %s; its threads' waits come from wchan only", p->pid,
               p->comm, strerror(errno));
    } else if (len > 0) {
      int rc = gw_parse_syscall_line(buf, &nr, &arg0);
      if (rc == 1)
        return GW_WAIT_NONE; /* ran again between the two reads */
      if (rc == 0 && nr >= 0) {
        enum gw_fd_kind fk = GW_FD_UNKNOWN;
        if (gw_syscall_waits_on_fd(nr) && arg0 < 1u << 30)
          fk = fd_kind(s, p, (int)arg0);
        *nr_out = (int16_t)nr;
        return gw_wait_kind_of_syscall(state, nr, fk);
      }
      if (rc == 0 && state == 'D')
        return GW_WAIT_DISK;
    }
  }
  /* no system call to go by (unreadable, or blocked outside one) */
  if (read_task_file(s, t, &t->wchan_fd, "wchan", buf, sizeof buf) < 0)
    buf[0] = '\0';
  return gw_wait_kind_of_wchan(state, buf);
}

static int role_matters(int role) {
  return role == GW_TROLE_MAIN || role == GW_TROLE_AUTOGRAD || role == GW_TROLE_LOADER_WORKER ||
         role == GW_TROLE_PIN_MEMORY || role == GW_TROLE_NCCL;
}

/* schedstat: "exec_ns wait_ns runs"; 0 or -1 (no file: a kernel without
 * CONFIG_SCHED_INFO, or a fixture tree without it). */
static int read_schedstat(struct gw_thread_sampler *s, struct ts_thread *t, uint64_t *exec_ns, uint64_t *runs) {
  char buf[128];
  if (read_task_file(s, t, &t->schedstat_fd, "schedstat", buf, sizeof buf) <= 0)
    return -1;
  /* three decimal numbers; strtoull, not sscanf, which costs as much as the
   * read's own user-space part at 20 samples a second per thread */
  char *p = buf, *end;
  unsigned long long v[3];
  for (int i = 0; i < 3; i++, p = end) {
    errno = 0;
    v[i] = strtoull(p, &end, 10);
    if (end == p || errno != 0 || (*end != ' ' && *end != '\n' && *end != '\0'))
      return -1;
  }
  *exec_ns = v[0];
  *runs = v[2];
  return 0;
}

/* Calls a thread sleeps in interruptibly (state S): no need of stat to know. */
static int sleeps_interruptibly(int wait) {
  return wait == GW_WAIT_FUTEX || wait == GW_WAIT_POLL || wait == GW_WAIT_SLEEP || wait == GW_WAIT_NET ||
         wait == GW_WAIT_PIPE;
}

static void emit_sample(struct gw_thread_sampler *s, struct ts_thread *t, struct gw_thread_row *row) {
  push_row(s, row);
  t->last = *row;
}

/* Where a thread is now from its system call alone: running, or asleep in a
 * call where stat is not needed. 1 when done (the row emitted with cpu_ns),
 * 0 to read stat: a call that may sleep in D (a file read: stat says), or
 * no call to read; then *pre keeps what was read. */
static int sample_from_syscall(struct gw_thread_sampler *s, struct ts_thread *t, int64_t t_ns, int64_t cpu_ns,
                               struct syscall_read *pre) {
  struct ts_proc *p = find_proc(s, t->pid);
  char buf[TS_SYSCALL_CAP];
  long nr;
  uint64_t arg0;
  if (!p || p->syscall_denied || read_task_file(s, t, &t->syscall_fd, "syscall", buf, sizeof buf) <= 0)
    return 0;
  struct gw_thread_row row = t->last;
  row.t_ns = t_ns;
  int rc = gw_parse_syscall_line(buf, &nr, &arg0);
  if (rc == 1) {
    row.state = GW_TSTATE_RUNNING;
    row.wait = GW_WAIT_NONE;
    row.syscall = -1;
  } else if (rc == 0 && nr >= 0) {
    enum gw_fd_kind fk = gw_syscall_waits_on_fd(nr) && arg0 < 1u << 30 ? fd_kind(s, p, (int)arg0) : GW_FD_UNKNOWN;
    int wait = gw_wait_kind_of_syscall('S', nr, fk);
    if (!sleeps_interruptibly(wait)) {
      *pre = (struct syscall_read){1, nr, arg0};
      return 0; /* a file read may be in D: stat says */
    }
    row.state = GW_TSTATE_SLEEPING;
    row.wait = (uint8_t)wait;
    row.syscall = (int16_t)nr;
  } else {
    return 0;
  }
  row.cpu_ns = cpu_ns;
  emit_sample(s, t, &row);
  return 1;
}

/* The cheap way, for a thread read fully before (exec_ns and runs just read
 * from its schedstat): asleep then and its run count unchanged means it sat
 * where it was, cpu_ns included; else its system call says whether it runs
 * now or sleeps where stat is not needed. Stat (8 us to read where schedstat
 * takes 2) is left for what only it tells: D, T, renames. 1 when done. */
static int sample_from_schedstat(struct gw_thread_sampler *s, struct ts_thread *t, int64_t t_ns, uint64_t exec_ns,
                                 uint64_t runs, struct syscall_read *pre) {
  int64_t cpu_ns = exec_ns <= (uint64_t)INT64_MAX ? (int64_t)exec_ns : -1;
  if (t->last.state != GW_TSTATE_RUNNING && runs == t->runs) {
    /* not put on a CPU since it slept: still where it was (or woken and
     * waiting for a CPU, for the length of a run-queue delay). A thread
     * that was running may have gone to sleep since: its call says. */
    struct gw_thread_row row = t->last;
    row.t_ns = t_ns;
    row.cpu_ns = cpu_ns;
    t->exec_ns = exec_ns;
    t->ran_recently = 0;
    emit_sample(s, t, &row);
    return 1;
  }
  if (!sample_from_syscall(s, t, t_ns, cpu_ns, pre))
    return 0;
  t->exec_ns = exec_ns;
  t->runs = runs;
  t->ran_recently = 1;
  return 1;
}

/* full: read stat whatever schedstat says (once a second, for names that
 * change without the thread running). */
static void sample_thread(struct gw_thread_sampler *s, struct ts_thread *t, int64_t t_ns, int full) {
  /* Stat carries the name, and a new process names itself in its first
   * moments (an exec into python, a DataLoader worker writing its comm):
   * read fully for a second, then the once-a-second full reads see renames. */
  int settled = t_ns - t->first_t_ns >= TS_SETTLE_NS;
  struct syscall_read pre = {0};
  /* A thread that ran since its last schedstat read gets nothing from
   * schedstat but its CPU time: its system call alone says where it is.
   * Its CPU time is read at every TS_CPU_EVERY-th sample (the rows between
   * carry none), which also tells whether it still runs: one read a sample
   * instead of two for busy threads (DataLoader workers, the ranks). Safe
   * for the shortcut below: its run count, kept from an earlier read,
   * is older than this sample, so an unchanged count still means that the
   * thread has not run since. */
  if (!full && settled && t->info_sent && t->have_sched && t->ran_recently && s->tick % TS_CPU_EVERY != 0 &&
      sample_from_syscall(s, t, t_ns, -1, &pre))
    return;
  /* schedstat before the files that say where the thread is: a run after
   * this read shows as a new run count at the next read, so an unchanged
   * count is never stale */
  uint64_t exec_ns = 0, runs = 0;
  int sched_read = read_schedstat(s, t, &exec_ns, &runs) == 0;
  if (!pre.have && !full && settled && t->info_sent && t->have_sched && sched_read &&
      sample_from_schedstat(s, t, t_ns, exec_ns, runs, &pre))
    return;
  char buf[TS_STAT_CAP];
  if (read_task_file(s, t, &t->stat_fd, "stat", buf, sizeof buf) < 0) {
    if (out_of_fds(errno)) {
      /* the process is at its descriptor limit: this sample is lost, the
       * thread is not */
      set_note(s, "thread samples skipped: the recorder ran out of file descriptors (%s; ulimit -n)", strerror(errno));
      return;
    }
    if (errno == EACCES || errno == EPERM)
      set_note(s, "thread %d of process %d unreadable: %s", t->tid, t->pid, strerror(errno));
    t->gone = 1; /* ended (or closed to us): out at the next rescan */
    forget_thread(s, t);
    return;
  }
  struct gw_pid_stat st;
  struct gw_err perr = {{0}};
  if (gw_parse_pid_stat(buf, &st, &perr) != 0)
    return;
  struct ts_proc *p = find_proc(s, t->pid);
  int is_main = t->tid == t->pid;
  if (is_main && p && strcmp(p->comm, st.comm) != 0) {
    /* an exec (a launcher's shim becomes python) or a worker naming itself
     * after the fork: what the process is changes */
    gw_strlcpy(p->comm, st.comm, sizeof p->comm);
    read_cmdline(s, p);
    const struct ts_proc *parent = find_proc(s, p->ppid);
    p->kind = gw_proc_kind_of(p->comm, p->cmdline, p->cmdline_len, parent ? parent->cmdline : NULL,
                              parent ? parent->cmdline_len : 0);
  }
  int role = gw_thread_role_of(st.comm, is_main, p ? p->kind : GW_PROC_OTHER);
  if (role != t->role || strncmp(t->comm, st.comm, sizeof t->comm - 1) != 0) {
    t->role = role;
    gw_strlcpy(t->comm, st.comm, sizeof t->comm);
    t->info_sent = 0;
  }
  if (!t->info_sent) {
    struct gw_thread_row info = {.kind = GW_THREAD_ROW_INFO,
                                 .t_ns = t->first_t_ns,
                                 .tid = t->tid,
                                 .pid = t->pid,
                                 .role = (uint8_t)t->role,
                                 .cpu_ns = -1,
                                 .syscall = -1};
    gw_strlcpy(info.comm, t->comm, sizeof info.comm);
    push_row(s, &info);
    t->info_sent = 1;
  }
  struct gw_thread_row row = {.kind = GW_THREAD_ROW_SAMPLE,
                              .t_ns = t_ns,
                              .tid = t->tid,
                              .pid = t->pid,
                              .state = (uint8_t)gw_thread_state_of(st.state),
                              .syscall = -1};
  /* utime + stime: the kernel scales the two so that they add up to the
   * thread's run time in ns (cputime_adjust), which schedstat gives whole
   * where stat rounds it down to 10 ms ticks. The same quantity either way,
   * so the cheap path's samples and these follow one another. */
  uint64_t ticks = st.utime_ticks + st.stime_ticks;
  if (sched_read)
    row.cpu_ns = exec_ns <= (uint64_t)INT64_MAX ? (int64_t)exec_ns : -1;
  else
    row.cpu_ns =
        ticks <= (uint64_t)INT64_MAX / 1000000000ull ? (int64_t)(ticks * (1000000000ull / (uint64_t)s->clk_tck)) : -1;
  row.wait = st.state == 'R' ? GW_WAIT_NONE : (uint8_t)read_wait(s, t, p, st.state, &row.syscall, &pre);
  t->ran_recently = sched_read && t->have_sched && runs != t->runs;
  t->have_sched = sched_read;
  t->exec_ns = exec_ns;
  t->runs = runs;
  emit_sample(s, t, &row);
}

void gw_thread_sampler_tick(struct gw_thread_sampler *s, int64_t t_ns) {
  if (!s)
    return;
  apply_pending(s);
  int rescan = s->rescan_needed || s->tick % s->hz == 0;
  if (rescan)
    rescan_tasks(s, t_ns);
  int helpers_due = s->tick % GW_THREAD_HELPER_EVERY == 0;
  for (int i = 0; i < s->nthreads; i++) {
    struct ts_thread *t = &s->threads[i];
    /* a thread not yet read has no role: read it once to learn it */
    if (t->gone || (t->role >= 0 && !role_matters(t->role) && !helpers_due))
      continue;
    sample_thread(s, t, t_ns, rescan);
  }
  s->tick++;
}

/* ---- life cycle ---- */

gw_status gw_thread_sampler_open(struct gw_thread_sampler **out, const char *root, int hz, struct gw_err *err) {
  *out = NULL;
  if (hz < 1 || hz > 1000) {
    gw_err_set(err, "thread sampling rate %d Hz is outside 1 to 1000", hz);
    return GW_EINPUT;
  }
  struct gw_thread_sampler *s = gw_xcalloc(1, sizeof *s);
  int live = !root || !root[0] || (root[0] == '/' && !root[1]);
  s->root = gw_xstrdup(live ? "" : root);
  s->live = live;
  s->hz = hz;
  s->clk_tck = sysconf(_SC_CLK_TCK);
  /* keep at most half the descriptor limit open, and leave 256 for the
   * rest of the recorder where the limit is large */
  struct rlimit lim;
  rlim_t soft = getrlimit(RLIMIT_NOFILE, &lim) == 0 ? lim.rlim_cur : 1024;
  if (soft == RLIM_INFINITY || soft > 1u << 20)
    soft = 1u << 20;
  s->fds_budget = soft > 512 ? (int)(soft - 256) : (int)(soft / 2);
  if (s->clk_tck <= 0 || s->clk_tck > 1000000000)
    s->clk_tck = 100;
  s->threads = gw_xcalloc(TS_MAX_THREADS, sizeof *s->threads);
  s->ring = gw_xcalloc(TS_RING_ROWS, sizeof *s->ring);
  pthread_mutex_init(&s->pending_lock, NULL);
  *out = s;
  return GW_OK;
}

void gw_thread_sampler_close(struct gw_thread_sampler *s) {
  if (!s)
    return;
  gw_thread_sampler_stop(s);
  for (int i = 0; i < s->nthreads; i++)
    forget_thread(s, &s->threads[i]);
  pthread_mutex_destroy(&s->pending_lock);
  free(s->threads);
  free(s->ring);
  free(s->root);
  free(s);
}

void gw_thread_sampler_set_procs(struct gw_thread_sampler *s, const struct gw_proc_sample *procs, int n) {
  if (!s || n < 0)
    return;
  pthread_mutex_lock(&s->pending_lock);
  s->npending = n < TS_MAX_PROCS ? n : TS_MAX_PROCS;
  if (s->npending > 0)
    memcpy(s->pending, procs, (size_t)s->npending * sizeof *procs);
  s->pending_gen++;
  pthread_mutex_unlock(&s->pending_lock);
}

static void *sampler_main(void *arg) {
  struct gw_thread_sampler *s = arg;
  int64_t period_ns = 1000000000LL / s->hz;
  int64_t next = gw_now_monotonic_ns();
  while (!atomic_load(&s->stop)) {
    gw_thread_sampler_tick(s, gw_now_realtime_ns());
    next += period_ns;
    int64_t now = gw_now_monotonic_ns();
    if (next < now)
      next = now + period_ns - (now - next) % period_ns; /* overran: skip, do not bunch up */
    struct timespec ts = {(time_t)(next / 1000000000LL), (long)(next % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !atomic_load(&s->stop))
      ;
  }
  return NULL;
}

gw_status gw_thread_sampler_start(struct gw_thread_sampler *s, struct gw_err *err) {
  if (!s || s->started)
    return GW_OK;
  /* signals go to the recorder's thread, which stops the recording on them */
  sigset_t all, old;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, &old);
  int rc = pthread_create(&s->thread, NULL, sampler_main, s);
  pthread_sigmask(SIG_SETMASK, &old, NULL);
  if (rc != 0) {
    gw_err_set(err, "thread sampler: cannot start its thread: %s", strerror(rc));
    return GW_ERR;
  }
  s->started = 1;
  return GW_OK;
}

void gw_thread_sampler_stop(struct gw_thread_sampler *s) {
  if (!s || !s->started)
    return;
  atomic_store(&s->stop, 1);
  pthread_join(s->thread, NULL);
  s->started = 0;
}

int64_t gw_thread_sampler_cpu_ns(struct gw_thread_sampler *s) {
  clockid_t cid;
  struct timespec ts;
  if (!s || !s->started || pthread_getcpuclockid(s->thread, &cid) != 0 || clock_gettime(cid, &ts) != 0)
    return -1;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

size_t gw_thread_sampler_drain(struct gw_thread_sampler *s, struct gw_thread_row *rows, size_t max) {
  if (!s)
    return 0;
  size_t tail = atomic_load_explicit(&s->tail, memory_order_relaxed);
  size_t head = atomic_load_explicit(&s->head, memory_order_acquire);
  size_t n = head - tail < max ? head - tail : max;
  for (size_t i = 0; i < n; i++)
    rows[i] = s->ring[(tail + i) & (TS_RING_ROWS - 1)];
  atomic_store_explicit(&s->tail, tail + n, memory_order_release);
  return n;
}

uint64_t gw_thread_sampler_dropped(struct gw_thread_sampler *s) {
  return s ? atomic_load(&s->dropped) : 0;
}

void gw_thread_sampler_note(struct gw_thread_sampler *s, char *out, size_t cap) {
  if (!cap)
    return;
  out[0] = '\0';
  if (s && atomic_load_explicit(&s->note_set, memory_order_acquire))
    gw_strlcpy(out, s->note, cap);
}
