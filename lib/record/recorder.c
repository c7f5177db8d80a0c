/* The recording loop: start or follow the target, sample every source each
 * tick, write the recording, pass the target's exit status through. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/record.h>

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/json_write.h"
#include "core/sample.h"
#include "core/util.h"
#include "sources/dcgm.h"
#include "sources/host.h"
#include "sources/kmsg.h"
#include "sources/thread_sampler.h"
#include "record/gpu_backends.h"
#include "record/record_source.h"
#include "store/store.h"
#include "store/store_job.h"
#include "store/store_write.h"
#include "nccl_collect.h"
#include "pyhook_collect.h"
#include "store/step_range.h"
#include "trace_collect.h"

#define MAX_GPUS 64
#define MAX_GPU_PROCS 64
#define SLOW_PERIOD_NS 1000000000LL   /* power, clocks; host per-core rows, disks */
#define HEALTH_PERIOD_NS 5000000000LL /* GPU health counters, GPU process lists */
#define RARE_PERIOD_NS 30000000000LL  /* the energy counter, dear to read */
#define RESCAN_PERIOD_NS 2000000000LL /* look for new processes in the whole of /proc */
#define COMMIT_PERIOD_NS 1000000000LL /* a crash loses at most this much */

/* Where the recorder's own CPU time goes, on record in the meta table so that
 * its cost can be read from any recording (bench/sampler compares them). */
static const char *const phase_key[GW_SOURCE_PHASE_COUNT] = {
    "recorder_cpu_gpu_s", "recorder_cpu_host_s", "recorder_cpu_kmsg_s", "recorder_cpu_trace_s", "recorder_cpu_store_s"};

static int64_t thread_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return 0;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int64_t process_cpu_ns(void) {
  struct timespec ts;
  if (clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts) != 0)
    return 0;
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static volatile sig_atomic_t stop_requested;
static volatile sig_atomic_t pending_signal;

void gw_record_request_stop(void) {
  stop_requested = 1;
}

/* The name of a process the driver lists on a GPU, so a report can name a
 * neighbour outside the job; "" when /proc does not show it (it exited, or
 * another pid namespace). */
static void read_process_name(int pid, char *out, size_t cap) {
  char path[64];
  out[0] = 0;
  snprintf(path, sizeof path, "/proc/%d/comm", pid);
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  if (fgets(out, (int)cap, f))
    out[strcspn(out, "\n")] = 0;
  else
    out[0] = 0;
  fclose(f);
}

static void on_signal(int sig) {
  pending_signal = sig;
  stop_requested = 1;
}

#define MAX_SOURCES 32

struct recorder {
  struct gw_source_ctx ctx; /* first: a source's context is its recorder (recorder_of) */
  struct gw_event_sink sink;
  void *source_state[MAX_SOURCES]; /* per row of gw_record_sources; NULL: off */
  struct gw_host_sample hs;        /* the newest host sample (each tick's view) */
  int created_output;              /* open_store made the file: a run that never began removes it */
  int run_began;                   /* the command runs (or the process is followed): the file is kept */
  int exec_errno;                  /* why the command could not be started (ENOENT: not found) */
  const struct gw_record_opts *o;
  struct gw_store *store;
  struct gw_gpu *gpu; /* NULL: no GPU source */
  struct gw_host *host;
  struct gw_kmsg *kmsg;
  unsigned ngpus;
  struct gw_gpu_info info[MAX_GPUS];
  struct gw_gpu_sample sample[MAX_GPUS];
  int lost[MAX_GPUS];
  int filler_source_put[MAX_GPUS]; /* the recording says which filler gave this GPU's SM activity */
  char gpu_note[512];
  int child_pid;
  int target_pid;
  int store_broken;          /* a write failed (disk full?): said once, retried each commit */
  int64_t store_failed_mono; /* when a write last failed, while store_broken */
  long ticks, ticks_late;
  struct gw_trace_collect *trace;
  /* The trace mode in force: as asked, or sampled when a GPU has no windowed
   * SM activity and none was asked (choose_trace_for_gpus; then it differs
   * from o->trace). */
  enum gw_trace_mode trace_mode;
  struct gw_nccl_collect *nccl;
  struct gw_pyhook_collect *pyhook;
  /* where each thread of the job is (record --thread-hz): sampled on a
   * thread of its own, its rows written here, where the store lives */
  struct gw_thread_sampler *threads;
  struct gw_thread_row *thread_rows;
  struct gw_store_thread_sample *thread_batch; /* the samples among them, for one statement of many rows */
  char trace_dir[4096];
  char tracer_lib[4096];
  int64_t started_ns;
  int64_t startup_cpu_ns;                      /* the process's CPU time when the first tick began */
  int64_t phase_cpu_ns[GW_SOURCE_PHASE_COUNT]; /* the sampling thread's CPU time per phase, summed over ticks */
};

static void say(const struct recorder *r, const char *fmt, ...) GW_PRINTF(2, 3);
static void say(const struct recorder *r, const char *fmt, ...) {
  if (r->o->quiet || r->o->on_tick)
    return;
  va_list ap;
  va_start(ap, fmt);
  fputs("gpuwhy: ", stderr);
  vfprintf(stderr, fmt, ap);
  fputc('\n', stderr);
  va_end(ap);
}

static void store_failed(struct recorder *r, const char *what) {
  r->store_failed_mono = gw_now_monotonic_ns();
  if (r->store_broken)
    return;
  r->store_broken = 1;
  fprintf(stderr, _("gpuwhy: writing %s to %s failed: %s; recording continues and retries every second\n"), _(what),
          gw_store_path(r->store), gw_store_errmsg(r->store));
}

/* "0000:10:1c" or "00000000:10:1C.0" -> domain, bus, device. */
static int parse_pci(const char *s, unsigned long v[3]) {
  for (int i = 0; i < 3; i++) {
    char *end;
    errno = 0;
    v[i] = strtoul(s, &end, 16);
    if (errno || end == s)
      return -1;
    if (i < 2) {
      if (*end != ':')
        return -1;
      s = end + 1;
    }
  }
  return 0;
}

/* kmsg events carry "PCI dddd:bb:dd" at the start of the message; find the GPU. */
static int gpu_of_pci_message(const struct recorder *r, const char *msg) {
  unsigned long want[3], have[3];
  if (strncmp(msg, "PCI ", 4) != 0 || parse_pci(msg + 4, want) != 0)
    return -1;
  for (unsigned g = 0; g < r->ngpus; g++)
    if (parse_pci(r->info[g].pci_bus_id, have) == 0 && have[0] == want[0] && have[1] == want[1] && have[2] == want[2])
      return (int)g;
  return -1;
}

static void on_event(void *ctx, const struct gw_event *ev) {
  struct recorder *r = ctx;
  struct gw_event copy = *ev;
  if (copy.gpu < 0 && (strcmp(copy.kind, "xid") == 0 || strcmp(copy.kind, "nvrm") == 0))
    copy.gpu = gpu_of_pci_message(r, copy.message);
  if (strcmp(copy.kind, "xid") == 0 || strcmp(copy.kind, "gpu_lost") == 0) {
    if (copy.t_ns >= r->started_ns)
      say(r, "%s %lld: %s", copy.kind, (long long)copy.code, copy.message); /* the kernel log's own words */
  }
  if (r->store && gw_store_put_event(r->store, &copy) != GW_OK)
    store_failed(r, N_("an event"));
}

/* Environment variables that change how a training job behaves. */
static int is_knob(const char *name) {
  static const char *const prefixes[] = {"NCCL_", "CUDA_", "OMP_", "PYTORCH_", "TORCH", "CUBLAS", "CUDNN_", "NVIDIA_",
                                         "MKL_",  "KMP_",  "TF_",  "XLA_",     "HF_",   "NVTE_",  "GPUWHY_"};
  static const char *const exact[] = {"LD_PRELOAD",  "LD_LIBRARY_PATH", "WORLD_SIZE", "RANK",        "LOCAL_RANK",
                                      "MASTER_ADDR", "MASTER_PORT",     "PYTHONPATH", "VIRTUAL_ENV", "SLURM_JOB_ID"};
  for (size_t i = 0; i < sizeof prefixes / sizeof *prefixes; i++)
    if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
      return 1;
  for (size_t i = 0; i < sizeof exact / sizeof *exact; i++)
    if (strcmp(name, exact[i]) == 0)
      return 1;
  return 0;
}

static void put_env_knobs(struct recorder *r) {
  extern char **environ;
  for (char **e = environ; e && *e; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || eq == *e || (size_t)(eq - *e) >= 128)
      continue;
    char name[128];
    memcpy(name, *e, (size_t)(eq - *e));
    name[eq - *e] = '\0';
    if (is_knob(name) && gw_store_put_env(r->store, name, eq + 1) != GW_OK)
      store_failed(r, N_("the environment"));
  }
}

/* argv as a JSON array, for the run table. */
static char *argv_json(char *const *argv, int pid) {
  size_t cap = 64, len = 0;
  char *out = gw_xcalloc(1, cap);
  if (!argv) {
    snprintf(out, cap, "[\"--pid\", \"%d\"]", pid);
    return out;
  }
  out[len++] = '[';
  for (int i = 0; argv[i]; i++) {
    size_t need = strlen(argv[i]) * 6 + 8;
    if (len + need + 2 > cap) {
      cap = (len + need + 2) * 2;
      out = gw_xrealloc(out, cap);
    }
    if (i)
      out[len++] = ',';
    long n = gw_json_quote(out + len, cap - len, argv[i]);
    if (n > 0)
      len += (size_t)n;
  }
  out[len++] = ']';
  out[len] = '\0';
  return out;
}

/* Without windowed SM activity (GPM on NVML) and without a trace, GPU-Util
 * is all the report has, and it cannot tell a small batch from real work:
 * one kernel resident on one SM reads 100%. So on such a GPU a command is traced in sampled windows unless
 * the user said --no-trace: the launch configurations of the kernels in the
 * windows give how full the SMs were, for about 1% of the step
 * (bench/RESULTS.md, sampled mode measured inside the process). Fails open:
 * without the tracer library the run is recorded as before, with the hint. */
static void choose_trace_for_gpus(struct recorder *r, uint64_t without_windowed) {
  const struct gw_record_opts *o = r->o;
  if (!without_windowed || o->dcgm || o->trace != GW_TRACE_OFF || !o->argv || !o->out_path)
    return;
  if (o->no_trace) {
    say(r, "%s",
        _("no GPM on this GPU and --no-trace: GPU-Util is all the report will have about how full the SMs are "
          "(it only says a kernel was resident)"));
    return;
  }
  if (gw_trace_find_library(o->tracer_lib, r->tracer_lib, sizeof r->tracer_lib) != 0) {
    say(r, "%s",
        _("no GPM on this GPU and no tracer library (libgpuwhy-tracer.so) beside gpuwhy: GPU-Util is all the "
          "report will have about how full the SMs are"));
    return;
  }
  r->trace_mode = GW_TRACE_SAMPLED;
  say(r, "%s",
      _("no GPM on this GPU: tracing kernels in sampled windows, so that the report can see how full the SMs are "
        "(about 1 per cent of the step time; --no-trace turns it off)"));
}

/* DCGM, the recording filler of windowed SM activity, for the GPUs without
 * it, when asked (record --dcgm): opt-in, since it adds watches to a host
 * engine that the cluster's own monitoring shares.
 * Fails open: one line, and the recording goes on without it. */
static void open_dcgm(struct recorder *r, uint64_t without_windowed) {
  const struct gw_record_opts *o = r->o;
  struct gw_err err = {{0}};
  if (!o->dcgm) {
    if (without_windowed && gw_dcgm_library_present())
      say(r, "no GPM on this GPU, but DCGM is installed: record --dcgm reads SM activity from its host engine");
    return;
  }
  if (!without_windowed)
    gw_err_set(&err, "DCGM not used: every GPU has GPM, which gpuwhy reads itself (add --no-gpm to compare them)");
  else if (gw_gpu_attach_filler(r->gpu, "dcgm", o->dcgm_address,
                                (unsigned)(o->gpm_interval_ms > o->interval_ms ? o->gpm_interval_ms : o->interval_ms),
                                without_windowed, &err) == GW_OK)
    return;
  say(r, "%s; recording goes on", err.msg);
  if (r->store && gw_store_put_meta(r->store, "dcgm_note", err.msg) != GW_OK)
    store_failed(r, "the DCGM note");
}

static struct recorder *recorder_of(struct gw_source_ctx *c) {
  return (struct recorder *)c;
}

/* The GPU backend: fails open, with the reason kept as the run's gpu_note. */
static int gpu_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)msg, (void)cap;
  struct recorder *r = recorder_of(c);
  const struct gw_record_opts *o = r->o;
  struct gw_err err = {{0}};
  gw_status rc = gw_gpu_open(&r->gpu, o->nvml_lib, &err);
  if (rc != GW_OK) {
    r->gpu = NULL;
    snprintf(r->gpu_note, sizeof r->gpu_note, "%s", err.msg);
  } else {
    r->ngpus = gw_gpu_count(r->gpu);
    gw_gpu_set_window_ms(r->gpu, (unsigned)(o->gpm_interval_ms > o->interval_ms ? o->gpm_interval_ms : o->interval_ms));
    if (o->no_gpm)
      gw_gpu_disable_windowed(r->gpu);
    if (r->ngpus > MAX_GPUS)
      r->ngpus = MAX_GPUS;
    for (unsigned g = 0; g < r->ngpus; g++) {
      r->info[g].index = g;
      if (gw_gpu_identity(r->gpu, g, &r->info[g], &err) != GW_OK)
        say(r, _("GPU %u: static facts incomplete: %s"), g, err.msg);
    }
    uint64_t without_windowed = 0; /* a bit per GPU */
    for (unsigned g = 0; g < r->ngpus && g < 64; g++)
      if (r->info[g].windowed_supported != 1)
        without_windowed |= 1ull << g;
    open_dcgm(r, without_windowed);
    choose_trace_for_gpus(r, without_windowed);
  }
  *state = r->gpu;
  return 0;
}

/* The host: without it there is no recording. */
static int host_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  struct recorder *r = recorder_of(c);
  struct gw_err err = {{0}};
  if (gw_host_open(&r->host, r->o->root, &err) != GW_OK) {
    snprintf(msg, cap, _("cannot read host statistics: %s"), err.msg);
    return -1;
  }
  *state = r->host;
  return 0;
}

/* The kernel log: fails open, with one line. */
static int kmsg_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)msg, (void)cap;
  struct recorder *r = recorder_of(c);
  const struct gw_record_opts *o = r->o;
  struct gw_err err = {{0}};
  const char *kmsg_root = o->root;
  gw_status rc = GW_ENOTSUP;
  if (o->kmsg_path) {
    /* A kernel-log file given directly (a fixture, or a saved dmesg stream). */
    char dir[4096];
    const char *suffix = "/dev/kmsg";
    size_t n = strlen(o->kmsg_path), sn = strlen(suffix);
    if (n > sn && strcmp(o->kmsg_path + n - sn, suffix) == 0 && n - sn < sizeof dir) {
      memcpy(dir, o->kmsg_path, n - sn);
      dir[n - sn] = '\0';
      rc = gw_kmsg_open(&r->kmsg, dir, 1, &err);
    } else {
      snprintf(err.msg, sizeof err.msg, _("--kmsg wants a path ending in /dev/kmsg, got %s"), o->kmsg_path);
    }
  } else {
    rc = gw_kmsg_open(&r->kmsg, kmsg_root, 1, &err);
  }
  if (rc != GW_OK) {
    r->kmsg = NULL;
    say(r, _("kernel log not recorded: %s"), err.msg);
  }
  *state = r->kmsg;
  return 0;
}

/* The folder the tracer writes into: beside the recording, emptied first. */
static int open_trace(struct recorder *r, char *msg, unsigned cap) {
  const struct gw_record_opts *o = r->o;
  if (r->trace_mode == GW_TRACE_OFF)
    return 0;
  if (!r->store || !o->argv) {
    snprintf(msg, cap, _("%s needs a command to start and a recording to write"),
             o->pm_sampling_only ? "--pm-sampling" : "--trace");
    return -1;
  }
  if (gw_trace_find_library(o->tracer_lib, r->tracer_lib, sizeof r->tracer_lib) != 0) {
    snprintf(msg, cap, _("%s: the tracer library libgpuwhy-tracer.so was not found (set GPUWHY_TRACER_LIB)"),
             o->pm_sampling_only ? "--pm-sampling" : "--trace");
    return -1;
  }
  if (snprintf(r->trace_dir, sizeof r->trace_dir, "%s.trace", o->out_path) >= (int)sizeof r->trace_dir) {
    snprintf(msg, cap, "%s", _("--trace: recording path too long"));
    return -1;
  }
  if (mkdir(r->trace_dir, 0700) != 0 && errno != EEXIST) {
    snprintf(msg, cap, _("--trace: cannot create %s: %s"), r->trace_dir, strerror(errno));
    return -1;
  }
  /* Absolute, in case the traced program changes its working directory. */
  char *abs_dir = realpath(r->trace_dir, NULL);
  if (abs_dir) {
    gw_strlcpy(r->trace_dir, abs_dir, sizeof r->trace_dir);
    free(abs_dir);
  }
  gw_remove_matching_files(r->trace_dir, "trace-", ".gwt");
  struct gw_err err = {{0}};
  if (gw_trace_collect_open(&r->trace, r->trace_dir, r->store, &err) != GW_OK) {
    snprintf(msg, cap, "--trace: %s", err.msg);
    return -1;
  }
  return 0;
}

/* NCCL's debug lines (which transport each channel took) go to a folder next
 * to the recording, not to the user's terminal. Off for --pid: the running
 * process's environment is not ours to change. */
static void open_nccl(struct recorder *r) {
  const struct gw_record_opts *o = r->o;
  if (!r->store || !o->argv || o->no_nccl_log)
    return;
  char dir[4200];
  if (snprintf(dir, sizeof dir, "%s.nccl", o->out_path) >= (int)sizeof dir)
    return;
  struct gw_err err = {{0}};
  if (gw_nccl_collect_open(&r->nccl, dir, r->store, &err) != GW_OK)
    say(r, _("NCCL transports will not be recorded: %s"), err.msg);
}

/* The hook's stack samples per second by default. Each sample takes the
 * interpreter lock from the training thread, and handing it over and back
 * costs that thread about 110 us on a launch-paced step (H100,
 * bench/tracer/pystack_cost.py --launch): 0.55% of its time at 50 Hz, over
 * the 0.5% budget. The cost goes with the samples taken: 0.20% [0.13, 0.26]
 * at 25 Hz on another H100 host (bench/RESULTS.md). 25 still leaves two
 * samples in every 100 ms GPU tick, the fewest the attribution takes
 * (idle_attribution.c); every verdict of the recordings with stack samples
 * holds with half of them dropped (tests/accuracy, variant half_rate). */
#define PY_SAMPLE_HZ_DEFAULT 25

static int py_sample_hz(const struct gw_record_opts *o) {
  return o->py_sample_hz < 0 ? 0 : o->py_sample_hz > 0 ? o->py_sample_hz : PY_SAMPLE_HZ_DEFAULT;
}

/* The Python hook: steps, data wait and batch sizes from inside PyTorch,
 * through a spool folder beside the recording. Off for --pid (its
 * environment is not ours) and with --no-python-hook. */
static void open_pyhook(struct recorder *r) {
  const struct gw_record_opts *o = r->o;
  if (!r->store || !o->argv || o->no_python_hook)
    return;
  char hook_dir[4096], dir[4200];
  if (gw_pyhook_find_dir(hook_dir, sizeof hook_dir) != 0) {
    say(r, "%s",
        _("Python steps will not be recorded: the hook folder gpuwhy_hook was not found (set GPUWHY_PYTHON_HOOK_DIR)"));
    return;
  }
  if (snprintf(dir, sizeof dir, "%s.py", o->out_path) >= (int)sizeof dir)
    return;
  struct gw_err err = {{0}};
  if (gw_pyhook_collect_open(&r->pyhook, dir, hook_dir, r->store, &err) != GW_OK)
    say(r, _("Python steps will not be recorded: %s"), err.msg);
  else
    gw_pyhook_collect_watch(r->pyhook, o->on_python_step, o->python_step_ctx);
}

static void put_meta_value(struct recorder *r, const char *key, int decimals, double v);

#define THREAD_ROWS_PER_DRAIN 4096

/* The thread sampler runs at --thread-hz, faster than the recorder's tick
 * (10 Hz by default): on its own thread. Fails open: one line, and the
 * recording goes on without it. */
static void open_thread_sampler(struct recorder *r) {
  const struct gw_record_opts *o = r->o;
  if (!r->store || o->thread_hz <= 0 || !r->target_pid)
    return;
  struct gw_err err = {{0}};
  if (gw_thread_sampler_open(&r->threads, o->root, o->thread_hz, &err) != GW_OK ||
      gw_thread_sampler_start(r->threads, &err) != GW_OK) {
    say(r, _("threads will not be sampled: %s"), err.msg);
    gw_thread_sampler_close(r->threads);
    r->threads = NULL;
    return;
  }
  r->thread_rows = gw_xcalloc(THREAD_ROWS_PER_DRAIN, sizeof *r->thread_rows);
  r->thread_batch = gw_xcalloc(THREAD_ROWS_PER_DRAIN, sizeof *r->thread_batch);
}

/* Move the sampler's rows into the store (the store is this thread's only). */
static void drain_thread_rows(struct recorder *r) {
  if (!r->threads)
    return;
  size_t n;
  int failed = 0;
  while ((n = gw_thread_sampler_drain(r->threads, r->thread_rows, THREAD_ROWS_PER_DRAIN)) > 0) {
    size_t nsamples = 0;
    for (size_t i = 0; i < n; i++) {
      const struct gw_thread_row *row = &r->thread_rows[i];
      if (row->kind == GW_THREAD_ROW_INFO)
        failed |= gw_store_put_thread_info(r->store, row->tid, row->pid, row->role, row->comm, row->t_ns) != GW_OK;
      else
        r->thread_batch[nsamples++] =
            (struct gw_store_thread_sample){row->t_ns, row->cpu_ns, row->tid, row->state, row->wait, row->syscall};
    }
    if (nsamples)
      failed |= gw_store_put_thread_samples(r->store, r->thread_batch, nsamples) != GW_OK;
  }
  if (failed)
    store_failed(r, N_("a thread sample"));
}

/* Stop sampling, write what is left and say how it went. */
static void finish_thread_sampler(struct recorder *r) {
  if (!r->threads)
    return;
  int64_t cpu_ns = gw_thread_sampler_cpu_ns(r->threads);
  gw_thread_sampler_stop(r->threads);
  drain_thread_rows(r);
  put_meta_value(r, "thread_sampling_hz", 0, r->o->thread_hz);
  if (cpu_ns >= 0)
    put_meta_value(r, "recorder_cpu_thread_sampler_s", 3, cpu_ns / 1e9);
  uint64_t dropped = gw_thread_sampler_dropped(r->threads);
  char note[256];
  gw_thread_sampler_note(r->threads, note, sizeof note);
  if (dropped) {
    char more[400];
    snprintf(more, sizeof more, "%s%s%llu samples dropped: the recording's writes fell behind", note,
             note[0] ? "; " : "", (unsigned long long)dropped);
    gw_strlcpy(note, more, sizeof note);
    put_meta_value(r, "thread_samples_dropped", 0, (double)dropped);
  }
  if (note[0] && gw_store_put_meta(r->store, "thread_sampling_note", note) != GW_OK)
    store_failed(r, "the thread sampling note");
}

static int open_store(struct recorder *r, char *msg, unsigned cap) {
  const struct gw_record_opts *o = r->o;
  struct gw_err err = {{0}};
  if (!o->out_path)
    return 0;
  if (gw_store_check_replace(o->out_path, o->force, &err) != GW_OK ||
      gw_store_create(&r->store, o->out_path, &err) != GW_OK) {
    snprintf(msg, cap, "%s", err.msg);
    return -1;
  }
  r->created_output = 1;
  return 0;
}

static void put_run_facts(struct recorder *r) {
  const struct gw_record_opts *o = r->o;
  if (!r->store)
    return;
  struct gw_host_info hi;
  memset(&hi, 0, sizeof hi);
  gw_host_info(r->host, &hi);
  struct gw_driver_info di;
  memset(&di, 0, sizeof di);
  if (r->gpu)
    gw_gpu_driver_info(r->gpu, &di);
  char cwd[4096];
  if (!getcwd(cwd, sizeof cwd))
    cwd[0] = '\0';
  char *cmd = argv_json(o->argv, o->pid);
  struct gw_run_info run = {
      .started_ns = r->started_ns,
      .command_json = cmd,
      .cwd = cwd,
      .target_pid = r->target_pid,
      .hostname = hi.hostname,
      .kernel = hi.kernel,
      .cpu_model = hi.cpu_model,
      .logical_cpus = hi.logical_cpus,
      .physical_cores = hi.physical_cores,
      .mem_total_bytes = hi.mem_total_bytes,
      .driver_version = r->gpu ? di.driver_version : NULL,
      .nvml_version = r->gpu ? di.nvml_version : NULL,
      .cuda_driver_version = di.cuda_driver_version,
      .interval_ms = o->interval_ms,
      .gpu_note = r->gpu ? NULL : r->gpu_note,
      .source = "record",
  };
  if (gw_store_put_run(r->store, &run) != GW_OK)
    store_failed(r, N_("the run facts"));
  free(cmd);
  /* a recording knows its run: report refuses to join a file with itself */
  char run_id[40];
  gw_store_new_run_id(run_id, sizeof run_id);
  if (gw_store_put_meta(r->store, "run_id", run_id) != GW_OK)
    store_failed(r, N_("the run facts"));
  put_env_knobs(r);
  for (unsigned g = 0; g < r->ngpus; g++)
    if (gw_store_put_gpu_info(r->store, &r->info[g]) != GW_OK)
      store_failed(r, N_("GPU facts"));
  if (gw_store_commit(r->store) != GW_OK)
    store_failed(r, N_("the run facts"));
}

/* The tracer's environment: CUDA loads the tracer at initialisation;
 * nothing else changes in the command. */
static void trace_child_env(struct gw_source_ctx *c, void *state) {
  (void)state;
  struct recorder *r = recorder_of(c);
  setenv("CUDA_INJECTION64_PATH", r->tracer_lib, 1);
  setenv("GPUWHY_TRACE_DIR", r->trace_dir, 1);
  setenv("GPUWHY_TRACE_MODE", r->trace_mode == GW_TRACE_FULL ? "full" : "sampled", 1);
  /* Preloaded, the tracer also sees another CUPTI client arrive
   * (torch.profiler) and gives CUPTI to it (tracer/coexist.c).
   * GPUWHY_TRACE_PRELOAD=0 leaves LD_PRELOAD alone. */
  const char *preload = getenv("LD_PRELOAD"), *opt = getenv("GPUWHY_TRACE_PRELOAD");
  char joined[8192];
  if (!(opt && strcmp(opt, "0") == 0) &&
      snprintf(joined, sizeof joined, "%s%s%s", r->tracer_lib, preload && *preload ? ":" : "", preload ? preload : "") <
          (int)sizeof joined)
    setenv("LD_PRELOAD", joined, 1);
  if (r->o->pm_sampling)
    setenv("GPUWHY_TRACE_PM_SAMPLING", "1", 1);
  /* PM sampling alone: no activity window (launch counting only), and
   * one sample per 100 ms, ten per window of a second; the user's own
   * settings win. */
  if (r->o->pm_sampling_only) {
    setenv("GPUWHY_TRACE_SAMPLED_KIND", "none", 0);
    setenv("GPUWHY_TRACE_PM_INTERVAL_MS", "100", 0);
  }
  /* NVTX ranges through the tracer's own NVTX injection (CUPTI 13.0
   * refuses NVTX callbacks); one the user named (Nsight) is kept. */
  const char *nvtx = getenv("NVTX_INJECTION64_PATH");
  if (!nvtx || !*nvtx)
    setenv("NVTX_INJECTION64_PATH", r->tracer_lib, 1);
}

static void nccl_child_env(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_nccl_collect_child_env(state);
}

static void pyhook_child_env(struct gw_source_ctx *c, void *state) {
  struct recorder *r = recorder_of(c);
  gw_pyhook_collect_child_env(state);
  char hz[16];
  snprintf(hz, sizeof hz, "%d", py_sample_hz(r->o));
  setenv("GPUWHY_PY_SAMPLE_HZ", hz, 1);
}

/* Start the command. The child gets the environment its sources set (the
 * tracer's, NCCL's log, the Python hook). */
static int start_child(struct recorder *r, char *msg, unsigned cap) {
  int pipefd[2];
  if (pipe2(pipefd, O_CLOEXEC) != 0) {
    snprintf(msg, cap, "pipe: %s", strerror(errno));
    return -1;
  }
  pid_t pid = fork();
  if (pid < 0) {
    snprintf(msg, cap, "fork: %s", strerror(errno));
    close(pipefd[0]);
    close(pipefd[1]);
    return -1;
  }
  if (pid == 0) {
    close(pipefd[0]);
    size_t nsources;
    const struct gw_record_source *const *sources = gw_record_sources(&nsources);
    for (size_t i = 0; i < nsources && i < MAX_SOURCES; i++)
      if (r->source_state[i] && sources[i]->child_env)
        sources[i]->child_env(&r->ctx, r->source_state[i]);
    execvp(r->o->argv[0], r->o->argv);
    int e = errno;
    ssize_t w = write(pipefd[1], &e, sizeof e);
    (void)w;
    _exit(127);
  }
  close(pipefd[1]);
  /* The pipe closes on a successful exec; an errno arrives when it failed. */
  int child_errno = 0;
  ssize_t n;
  do
    n = read(pipefd[0], &child_errno, sizeof child_errno);
  while (n < 0 && errno == EINTR);
  close(pipefd[0]);
  if (n == (ssize_t)sizeof child_errno) {
    waitpid(pid, NULL, 0);
    r->exec_errno = child_errno;
    snprintf(msg, cap, _("cannot run %s: %s"), r->o->argv[0], strerror(child_errno));
    return -1;
  }
  r->child_pid = pid;
  r->target_pid = pid;
  return 0;
}

static int process_alive(int pid) {
  return kill(pid, 0) == 0 || errno == EPERM;
}

/* what: GW_GPU_* bits. The SLOW table row is written when slow or rare
 * metrics were asked for. */
static void sample_gpus(struct recorder *r, int64_t t_ns, unsigned what, const struct gw_event_sink *sink) {
  int slow_due = (what & (GW_GPU_SLOW | GW_GPU_RARE)) != 0;
  unsigned tables = (what & GW_GPU_FAST ? 1u << GW_TABLE_FAST : 0) | (slow_due ? 1u << GW_TABLE_SLOW : 0);
  for (unsigned g = 0; g < r->ngpus; g++) {
    struct gw_gpu_sample *s = &r->sample[g];
    memset(s, 0, sizeof *s);
    s->t_ns = t_ns;
    s->gpu = g;
    if (r->lost[g])
      continue;
    gw_status rc = gw_gpu_sample(r->gpu, g, t_ns, what, s, sink);
    if (rc == GW_ELOST) {
      r->lost[g] = 1;
      s->valid = 0;
      continue;
    }
    if (r->store && gw_store_put_gpu_sample(r->store, s, tables) != GW_OK)
      store_failed(r, N_("a GPU sample"));
    const char *filled_by = r->store && !r->filler_source_put[g] ? gw_gpu_windowed_filled_by(r->gpu, g) : NULL;
    if (filled_by) {
      char key[48];
      snprintf(key, sizeof key, "sm_activity_source.gpu%u", g);
      r->filler_source_put[g] = 1;
      if (gw_store_put_meta(r->store, key, filled_by) != GW_OK)
        store_failed(r, N_("the SM activity source"));
    }
    if ((what & GW_GPU_SLOW) && r->store) {
      struct gw_gpu_proc procs[MAX_GPU_PROCS];
      int n = gw_gpu_processes(r->gpu, g, t_ns, procs, MAX_GPU_PROCS);
      for (int i = 0; i < n; i++)
        read_process_name(procs[i].pid, procs[i].comm, sizeof procs[i].comm);
      for (int i = 0; i < n; i++)
        if (gw_store_put_gpu_proc(r->store, &procs[i]) != GW_OK)
          store_failed(r, N_("a GPU process"));
    }
  }
}

static void put_meta_value(struct recorder *r, const char *key, int decimals, double v) {
  char text[64];
  snprintf(text, sizeof text, "%.*f", decimals, v);
  if (gw_store_put_meta(r->store, key, text) != GW_OK)
    store_failed(r, N_("the recorder's own cost"));
}

/* The recorder's own CPU time and memory, so its overhead is on record. */
static void put_self_cost(struct recorder *r) {
  struct rusage ru;
  if (!r->store || getrusage(RUSAGE_SELF, &ru) != 0)
    return;
  put_meta_value(r, "recorder_cpu_user_s", 3, (double)ru.ru_utime.tv_sec + ru.ru_utime.tv_usec / 1e6);
  put_meta_value(r, "recorder_cpu_system_s", 3, (double)ru.ru_stime.tv_sec + ru.ru_stime.tv_usec / 1e6);
  put_meta_value(r, "recorder_max_rss_bytes", 0, (double)ru.ru_maxrss * 1024.0);
  put_meta_value(r, "recorder_ticks", 0, (double)r->ticks);
  put_meta_value(r, "recorder_ticks_late", 0, (double)r->ticks_late);
  put_meta_value(r, "recorder_cpu_startup_s", 3, r->startup_cpu_ns / 1e9);
  for (int p = 0; p < GW_SOURCE_PHASE_COUNT; p++)
    put_meta_value(r, phase_key[p], 3, r->phase_cpu_ns[p] / 1e9);
}

/* record --step-range: the named NVTX ranges become steps (store/step_range.c). */
static void put_range_steps(struct recorder *r) {
  uint64_t steps = 0, kept = 0;
  struct gw_err err = {{0}};
  if (gw_store_step_range_apply(r->store, r->o->step_range, r->o->step_range_replaces, &steps, &kept, &err) != GW_OK) {
    say(r, "%s", err.msg);
    return;
  }
  put_meta_value(r, "step_range_steps", 0, (double)steps);
  if (gw_store_put_meta(r->store, "step_range", r->o->step_range) != GW_OK)
    store_failed(r, "the step range name");
  if (!steps && !kept)
    say(r, _("--step-range %s: no NVTX range of that name was recorded"), r->o->step_range);
  else if (kept)
    say(r, _("--step-range %s: %llu process(es) kept the Python hook's steps (--step-range-replaces takes the ranges)"),
        r->o->step_range, (unsigned long long)kept);
}

static int exit_status_of(int wstatus) {
  if (WIFEXITED(wstatus))
    return WEXITSTATUS(wstatus);
  if (WIFSIGNALED(wstatus))
    return 128 + WTERMSIG(wstatus);
  return 1;
}

/* The built-in sources' rows (record/record_source_list.h). Their state is
 * also the recorder's own field (r->gpu, r->host, ...), which the rest of
 * the recorder reads. */

static void gpu_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  (void)state;
  sample_gpus(recorder_of(c), t->t_ns,
              GW_GPU_FAST | (t->second_due ? GW_GPU_SECOND : 0) | (t->health_due ? GW_GPU_SLOW : 0) |
                  (t->rare_due ? GW_GPU_RARE : 0),
              c->sink);
}
/* The closing energy reading: exact average power over the run. */
static void gpu_stop(struct gw_source_ctx *c, void *state, int64_t ended_ns) {
  (void)state;
  sample_gpus(recorder_of(c), ended_ns, GW_GPU_RARE, c->sink);
}
static void gpu_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_gpu_close(state);
}
const struct gw_record_source gw_record_source_gpu = {
    "gpu", 0, GW_SOURCE_OPENS_BEFORE_COMMAND, GW_SOURCE_PHASE_GPU, gpu_open, NULL, gpu_tick, gpu_stop, NULL, gpu_close};

/* The host once a second, whatever the GPU tick: the kernel counts CPU time
 * in 10 ms steps (USER_HZ), so a process's share over 100 ms comes in steps
 * of 10 points, over a second in steps of 1; and each tick of /proc reads
 * and rows costs about 0.15 ms on a 16-core machine, most of what a 10 Hz
 * recording would spend (bench/RESULTS.md). */
static void host_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  struct recorder *r = recorder_of(c);
  struct gw_err err = {{0}};
  if (t->second_due &&
      gw_host_sample(state, t->t_ns, t->rescan_due ? GW_HOST_RESCAN : 0, &r->hs, c->sink, &err) == GW_OK) {
    if (r->store && gw_store_put_host_sample(r->store, &r->hs) != GW_OK)
      store_failed(r, N_("a host sample"));
    /* the host source walks the job's tree: its processes are the sampler's */
    gw_thread_sampler_set_procs(r->threads, r->hs.procs, r->hs.nprocs);
  }
}
/* The host's last part-second, so that a short run has its rates too. */
static void host_stop(struct gw_source_ctx *c, void *state, int64_t ended_ns) {
  struct recorder *r = recorder_of(c);
  struct gw_err last_err = {{0}};
  if (gw_host_sample(state, ended_ns, 0, &r->hs, c->sink, &last_err) == GW_OK && r->store &&
      gw_store_put_host_sample(r->store, &r->hs) != GW_OK)
    store_failed(r, N_("a host sample"));
}
static void host_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_host_close(state);
}
const struct gw_record_source gw_record_source_host = {
    "host", 0,         GW_SOURCE_OPENS_BEFORE_COMMAND, GW_SOURCE_PHASE_HOST, host_open, NULL, host_tick, host_stop,
    NULL,   host_close};

static void kmsg_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  (void)t;
  (void)gw_kmsg_poll(state, c->sink);
}
static void kmsg_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_kmsg_close(state);
}
const struct gw_record_source gw_record_source_kmsg = {
    "kmsg", 0,         GW_SOURCE_OPENS_BEFORE_COMMAND, GW_SOURCE_PHASE_KMSG, kmsg_open, NULL, kmsg_tick, NULL,
    NULL,   kmsg_close};

/* Off unless asked (or chosen for a GPU without windowed SM activity); asked
 * and impossible, the recording is not made. */
static int trace_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  struct recorder *r = recorder_of(c);
  int rc = open_trace(r, msg, cap);
  *state = r->trace;
  return rc;
}
static void trace_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  if (t->second_due)
    gw_trace_collect_poll(state, c->sink);
}
static void trace_finish(struct gw_source_ctx *c, void *state) {
  (void)state;
  struct recorder *r = recorder_of(c);
  const struct gw_record_opts *o = r->o;
  gw_trace_collect_finish(r->trace, c->sink);
  put_meta_value(r, "trace_records", 0, (double)gw_trace_collect_records(r->trace));
  const char *mode = r->trace_mode == GW_TRACE_FULL ? "full" : o->pm_sampling_only ? "pm_sampling" : "sampled";
  if (gw_store_put_meta(r->store, "trace_mode", mode) != GW_OK)
    store_failed(r, "the trace mode");
  int trace_chosen = r->trace_mode != o->trace; /* by choose_trace_for_gpus */
  if (trace_chosen && gw_store_put_meta(r->store, "trace_chosen_because", "no_gpm") != GW_OK)
    store_failed(r, "why the trace was on");
  say(r, "traced %llu records", (unsigned long long)gw_trace_collect_records(r->trace));
  /* The spool's files may go once their records are committed: the
   * recording keeps everything they held. */
  if (gw_store_commit(r->store) == GW_OK)
    gw_trace_collect_remove_read(r->trace);
  if (r->trace_mode == GW_TRACE_SAMPLED && !trace_chosen && !o->pm_sampling_only &&
      gw_store_rows_in(r->store, "trace_window") == 0)
    say(r, "no sampling window opened: the first opens one period (5 s by default) after CUDA starts; for a "
           "short run use --trace=full");
}
static void trace_close(struct gw_source_ctx *c, void *state) {
  struct recorder *r = recorder_of(c);
  gw_trace_collect_close(state);
  /* The spool folder X.db.trace only carried the tracer's files to the
   * recorder; its records are in the recording now. rmdir removes it only
   * when empty, so files a failed read left behind stay to be looked at. */
  if (r->trace_dir[0])
    rmdir(r->trace_dir);
}
const struct gw_record_source gw_record_source_trace = {"trace",
                                                        0,
                                                        GW_SOURCE_OPENS_BEFORE_COMMAND,
                                                        GW_SOURCE_PHASE_TRACE,
                                                        trace_open,
                                                        trace_child_env,
                                                        trace_tick,
                                                        NULL,
                                                        trace_finish,
                                                        trace_close};

static int nccl_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)msg, (void)cap;
  struct recorder *r = recorder_of(c);
  open_nccl(r);
  *state = r->nccl;
  return 0;
}
static void nccl_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  (void)c;
  if (t->second_due)
    gw_nccl_collect_poll(state);
}
static void nccl_finish(struct gw_source_ctx *c, void *state) {
  (void)state;
  struct recorder *r = recorder_of(c);
  gw_nccl_collect_poll(r->nccl);
  put_meta_value(r, "nccl_log_lines", 0, (double)gw_nccl_collect_lines(r->nccl));
  if (gw_nccl_collect_dropped(r->nccl))
    put_meta_value(r, "nccl_log_lines_dropped", 0, (double)gw_nccl_collect_dropped(r->nccl));
}
static void nccl_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_nccl_collect_close(state);
}
const struct gw_record_source gw_record_source_nccl = {"nccl",
                                                       GW_SOURCE_NEEDS_STORE | GW_SOURCE_NEEDS_COMMAND,
                                                       GW_SOURCE_OPENS_BEFORE_COMMAND,
                                                       GW_SOURCE_PHASE_TRACE,
                                                       nccl_open,
                                                       nccl_child_env,
                                                       nccl_tick,
                                                       NULL,
                                                       nccl_finish,
                                                       nccl_close};

static int pyhook_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)msg, (void)cap;
  struct recorder *r = recorder_of(c);
  open_pyhook(r);
  *state = r->pyhook;
  return 0;
}
static void pyhook_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  if (t->second_due)
    gw_pyhook_collect_poll(state, c->sink);
}
static void pyhook_finish(struct gw_source_ctx *c, void *state) {
  (void)state;
  struct recorder *r = recorder_of(c);
  const struct gw_record_opts *o = r->o;
  gw_pyhook_collect_finish(r->pyhook, c->sink);
  put_meta_value(r, "python_hook_steps", 0, (double)gw_pyhook_collect_steps(r->pyhook));
  put_meta_value(r, "py_sampling_hz", 0, (double)py_sample_hz(o));
  put_meta_value(r, "python_hook_stack_samples", 0, (double)gw_pyhook_collect_py_samples(r->pyhook));
  if (gw_pyhook_collect_bad_lines(r->pyhook))
    put_meta_value(r, "python_hook_bad_lines", 0, (double)gw_pyhook_collect_bad_lines(r->pyhook));
}
static void pyhook_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  gw_pyhook_collect_close(state);
}
const struct gw_record_source gw_record_source_pyhook = {"pyhook",
                                                         GW_SOURCE_NEEDS_STORE | GW_SOURCE_NEEDS_COMMAND,
                                                         GW_SOURCE_OPENS_BEFORE_COMMAND,
                                                         GW_SOURCE_PHASE_TRACE,
                                                         pyhook_open,
                                                         pyhook_child_env,
                                                         pyhook_tick,
                                                         NULL,
                                                         pyhook_finish,
                                                         pyhook_close};

/* The thread sampler runs on its own thread; its rows are moved into the
 * store with the commit (drain_thread_rows), so it has no tick. */
static int threads_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)msg, (void)cap;
  struct recorder *r = recorder_of(c);
  open_thread_sampler(r);
  *state = r->threads;
  return 0;
}
static void threads_stop(struct gw_source_ctx *c, void *state, int64_t ended_ns) {
  (void)state, (void)ended_ns;
  finish_thread_sampler(recorder_of(c));
}
static void threads_close(struct gw_source_ctx *c, void *state) {
  struct recorder *r = recorder_of(c);
  gw_thread_sampler_close(state);
  free(r->thread_rows);
  free(r->thread_batch);
}
const struct gw_record_source gw_record_source_threads = {"threads",
                                                          GW_SOURCE_NEEDS_STORE | GW_SOURCE_NEEDS_TARGET,
                                                          GW_SOURCE_OPENS_AFTER_START,
                                                          GW_SOURCE_PHASE_STORE,
                                                          threads_open,
                                                          NULL,
                                                          NULL,
                                                          threads_stop,
                                                          NULL,
                                                          threads_close};

/* Open the sources of one stage, in table order: -1 with msg when one opened
 * before the command says the recording cannot be made. */
static int open_stage(struct recorder *r, enum gw_source_opens stage, char *msg, unsigned cap) {
  size_t n;
  const struct gw_record_source *const *sources = gw_record_sources(&n);
  for (size_t i = 0; i < n && i < MAX_SOURCES; i++) {
    const struct gw_record_source *src = sources[i];
    if (src->opens != stage)
      continue;
    if (((src->needs & GW_SOURCE_NEEDS_STORE) && !r->store) ||
        ((src->needs & GW_SOURCE_NEEDS_COMMAND) && !r->o->argv) ||
        ((src->needs & GW_SOURCE_NEEDS_TARGET) && !r->target_pid))
      continue;
    if (src->open(&r->ctx, &r->source_state[i], msg, cap) != 0) {
      if (stage == GW_SOURCE_OPENS_BEFORE_COMMAND)
        return -1;
      /* the command runs: the recording goes on without the source */
      say(r, "%s", msg);
      msg[0] = '\0';
      r->source_state[i] = NULL;
    }
  }
  return 0;
}

/* What is due now: each source's tick, its CPU time to its phase. */
static void tick_sources(struct recorder *r, const struct gw_source_tick *t) {
  size_t n;
  const struct gw_record_source *const *sources = gw_record_sources(&n);
  for (size_t i = 0; i < n && i < MAX_SOURCES; i++)
    if (r->source_state[i] && sources[i]->tick) {
      int64_t cpu0 = thread_cpu_ns();
      sources[i]->tick(&r->ctx, r->source_state[i], t);
      r->phase_cpu_ns[sources[i]->phase] += thread_cpu_ns() - cpu0;
    }
}

static void stop_sources(struct recorder *r, int64_t ended_ns) {
  size_t n;
  const struct gw_record_source *const *sources = gw_record_sources(&n);
  for (size_t i = 0; i < n && i < MAX_SOURCES; i++)
    if (r->source_state[i] && sources[i]->stop)
      sources[i]->stop(&r->ctx, r->source_state[i], ended_ns);
}

static void finish_sources(struct recorder *r) {
  size_t n;
  const struct gw_record_source *const *sources = gw_record_sources(&n);
  for (size_t i = 0; i < n && i < MAX_SOURCES; i++)
    if (r->source_state[i] && sources[i]->finish)
      sources[i]->finish(&r->ctx, r->source_state[i]);
}

static void close_all(struct recorder *r) {
  size_t n;
  const struct gw_record_source *const *sources = gw_record_sources(&n);
  for (size_t i = n < MAX_SOURCES ? n : MAX_SOURCES; i-- > 0;)
    sources[i]->close(&r->ctx, r->source_state[i]);
  gw_store_close(r->store);
}

int gw_record_run(const struct gw_record_opts *o, char *msg, unsigned cap) {
  struct recorder rr;
  struct recorder *r = &rr;
  memset(r, 0, sizeof *r);
  r->o = o;
  r->ctx.o = o;
  r->sink = (struct gw_event_sink){on_event, r};
  r->ctx.sink = &r->sink;
  r->trace_mode = o->trace;
  msg[0] = '\0';
  if (o->interval_ms < 10 || o->interval_ms > 600000) {
    snprintf(msg, cap, _("--interval must be between 10 and 600000 ms, got %d"), o->interval_ms);
    return GPUWHY_EXIT_USAGE;
  }
  stop_requested = 0;
  pending_signal = 0;
  struct sigaction sa, old_int, old_term, old_hup;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_signal;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  sigaction(SIGHUP, &sa, &old_hup);

  int status = GPUWHY_EXIT_TOOL_FAILED; /* distinct from any status of the command's */
  if (open_store(r, msg, cap) != 0)
    goto out;
  r->ctx.store = r->store;
  if (open_stage(r, GW_SOURCE_OPENS_BEFORE_COMMAND, msg, cap) != 0)
    goto out;
  if (o->argv && o->argv[0]) {
    if (start_child(r, msg, cap) != 0) {
      status = r->exec_errno == ENOENT ? GPUWHY_EXIT_NOT_FOUND : GPUWHY_EXIT_CANNOT_RUN;
      goto out;
    }
  } else if (o->pid > 0) {
    if (!process_alive(o->pid)) {
      snprintf(msg, cap, _("no process with pid %d"), o->pid);
      goto out;
    }
    r->target_pid = o->pid;
  }
  r->ctx.target_pid = r->target_pid;
  if (r->target_pid)
    gw_host_set_target(r->host, r->target_pid);
  if (open_stage(r, GW_SOURCE_OPENS_AFTER_START, msg, cap) != 0)
    goto out;
  r->started_ns = gw_now_realtime_ns();
  r->run_began = 1;
  put_run_facts(r);
  if (!r->gpu)
    say(r, _("no GPU data: %s; recording the host only"), r->gpu_note);
  if (o->out_path) {
    if (r->ngpus > 0)
      say(r,
          gw_ngettext("recording %u GPU every %d ms and the host every second to %s",
                      "recording %u GPUs every %d ms and the host every second to %s", r->ngpus),
          r->ngpus, o->interval_ms, o->out_path);
    else
      say(r, _("recording the host every second to %s"), o->out_path);
  }

  int64_t interval_ns = (int64_t)o->interval_ms * 1000000LL;
  int64_t start_mono = gw_now_monotonic_ns();
  int64_t last_rare = start_mono - RARE_PERIOD_NS, last_health = start_mono - HEALTH_PERIOD_NS;
  int64_t next_tick = start_mono, last_slow = start_mono - SLOW_PERIOD_NS, last_rescan = start_mono - RESCAN_PERIOD_NS;
  int64_t end_mono = o->duration_s > 0 ? start_mono + (int64_t)(o->duration_s * 1e9) : INT64_MAX;
  int child_status = -1, target_gone = 0;
  status = 0;
  r->startup_cpu_ns = process_cpu_ns();

  for (;;) {
    int64_t now_mono = gw_now_monotonic_ns();
    int64_t t_ns = gw_now_realtime_ns();
    int slow_due = now_mono - last_slow >= SLOW_PERIOD_NS - interval_ns / 2;
    if (slow_due)
      last_slow = now_mono;
    int rescan_due = slow_due && now_mono - last_rescan >= RESCAN_PERIOD_NS - interval_ns / 2;
    if (rescan_due)
      last_rescan = now_mono;
    int rare_due = now_mono - last_rare >= RARE_PERIOD_NS;
    if (rare_due)
      last_rare = now_mono;
    int health_due = now_mono - last_health >= HEALTH_PERIOD_NS - interval_ns / 2;
    if (health_due)
      last_health = now_mono;
    struct gw_source_tick tick_due = {t_ns, slow_due, rescan_due, health_due, rare_due};
    tick_sources(r, &tick_due);
    r->ticks++;
    if (o->on_tick) {
      struct gw_tick tick = {
          t_ns, (int)r->ngpus, r->info, r->sample, r->lost, &r->hs, r->gpu ? NULL : r->gpu_note, r->target_pid};
      if (o->on_tick(o->tick_ctx, &tick))
        stop_requested = 1;
    }
    if (r->store) {
      int64_t cpu5 = thread_cpu_ns();
      drain_thread_rows(r);
      if (gw_store_commit_if_due(r->store, COMMIT_PERIOD_NS) != GW_OK)
        store_failed(r, N_("a commit"));
      else if (gw_now_monotonic_ns() - r->store_failed_mono > 5 * COMMIT_PERIOD_NS)
        /* five commit periods without a failure: a new one is news. A full disk flickers (the WAL reuses
         * pages after a checkpoint, so a small commit can pass between failures), so two were not enough */
        r->store_broken = 0;
      r->phase_cpu_ns[GW_SOURCE_PHASE_STORE] += thread_cpu_ns() - cpu5;
    }

    /* Has the target ended? */
    if (r->child_pid && child_status < 0) {
      int ws;
      pid_t w = waitpid(r->child_pid, &ws, WNOHANG);
      if (w == r->child_pid) {
        child_status = exit_status_of(ws);
        target_gone = 1;
      }
    } else if (!r->child_pid && o->pid > 0 && !process_alive(o->pid)) {
      target_gone = 1;
    }
    if (target_gone || stop_requested || gw_now_monotonic_ns() >= end_mono)
      break;

    next_tick += interval_ns;
    now_mono = gw_now_monotonic_ns();
    if (next_tick < now_mono) {
      /* Overran: skip the missed ticks rather than bunching them up. */
      r->ticks_late++;
      next_tick = now_mono + interval_ns - (now_mono - start_mono) % interval_ns;
    }
    struct timespec ts = {(time_t)(next_tick / 1000000000LL), (long)(next_tick % 1000000000LL)};
    while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop_requested)
      ;
  }

  int64_t ended_ns = gw_now_realtime_ns();
  stop_sources(r, ended_ns);
  if (r->child_pid && child_status < 0) {
    /* Stopped early (signal or --duration): pass a signal on, then wait so the
     * exit status of the command is still ours to return. */
    if (pending_signal || o->stop_command)
      kill(r->child_pid, pending_signal == SIGINT ? SIGINT : SIGTERM);
    else
      say(r, _("recording stopped after %.0f s; waiting for the command to finish"), o->duration_s);
    int ws;
    while (waitpid(r->child_pid, &ws, 0) < 0 && errno == EINTR)
      ;
    child_status = exit_status_of(ws);
  }
  status = r->child_pid ? child_status : 0;
  finish_sources(r);
  if (r->trace && o->step_range)
    put_range_steps(r);
  if (r->store) {
    put_self_cost(r);
    if (gw_store_finish_run(r->store, ended_ns, status) != GW_OK || gw_store_commit(r->store) != GW_OK)
      store_failed(r, N_("the end of the run"));
    say(r,
        gw_ngettext("recorded %.1f s (%ld tick) to %s; next: gpuwhy report %s",
                    "recorded %.1f s (%ld ticks) to %s; next: gpuwhy report %s", (unsigned long)r->ticks),
        (ended_ns - r->started_ns) / 1e9, r->ticks, o->out_path, o->out_path);
  }
out:
  close_all(r);
  /* A run that never began (the command could not be started, a source
   * failed) leaves no empty recording behind. From the run's start on, the
   * file stays whatever happens: a killed recorder leaves what it committed. */
  if (r->created_output && !r->run_began)
    gw_store_remove_files(o->out_path);
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  sigaction(SIGHUP, &old_hup, NULL);
  return status;
}
