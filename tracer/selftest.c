/* CUDA-free self-test of libgpuwhy-tracer.so. Each case runs in a forked
 * child that dlopens the tracer and calls InitializeInjection() as CUDA
 * would; the parent then reads the wire file back with the real reader.
 *   1. no libcupti reachable: returns 1, one NOTE, one stderr line, no crash
 *   2. GPUWHY_TRACE_DIR unset: does nothing
 *   3. another CUPTI client holds CUPTI at start (subscribe returns 39):
 *      the tracer stands aside (one warning, one stderr line), no records
 *   3c. that client leaves later: the tracer comes back and traces
 *   4. full mode against a fake libcupti, normal exit: records flushed at exit
 *   4b. an unknown value in a GPUWHY_TRACE_ variable: the default, one warning
 *   4d. full mode with the API calls from CUPTI's callbacks: one API record
 *       per call of the program, through the per-thread rings
 *   5. sampled mode: WINDOW and LAUNCH_COUNT records
 *   5e/5f. CUDA graphs (told by the Python hook): CUPTI never taken out
 *       once they are known, never put back after a detach;
 *   5b. sampled mode's default (detach_own) with no CUDA driver to call:
 *       one info NOTE, then cuptiFinalize at a program API exit after each
 *       window (the detach way), records of every window
 *   5g. the default (detach_own) with a driver (the fake's
 *       cuDriverGetVersion): cuptiFinalize on the tracer's own thread; the
 *       fake records which thread made each CUPTI state call: none on the
 *       program's thread
 *   5h. quiet (GPUWHY_TRACE_WINDOW_END=quiet): no cuptiFinalize, no CUPTI
 *       state call on the program's thread, every kind off between windows
 *   5c. another CUPTI client takes CUPTI while it is detached: one warning,
 *       no more windows, the program runs on
 *   5d. sampled mode kept attached (GPUWHY_TRACE_DETACH=0): no cuptiFinalize, one
 *       edge NOTE per window, no time taken on the program's thread
 *   8. a second client (Kineto-like) arrives through the tracer's CUPTI
 *      interposers mid-run, in sampled and in full mode: the tracer steps
 *      aside before the client's subscribe proceeds, the client gets its
 *      own kernels (its kinds are not switched off, its buffers not taken),
 *      no window overlaps its session, and after it unsubscribes the tracer
 *      comes back; both moments are NOTEs
 *   6. SIGTERM: records flushed, then the process still dies of SIGTERM
 *   7. CUPTI keeps every buffer: the pool runs dry, records are dropped and
 *      counted (a DROPPED record), the program runs on
 *   9. PM sampling against libcupti-fake-pm.so (fake_cupti_pm.c, which
 *      keeps the config image, writes whole counter images and tears its
 *      PM state down in an exit handler registered at its first use): the
 *      program exits while sampling; the sampler must be stopped, disabled
 *      and deinitialised before that teardown, with no sanitizer report;
 *      with the first versions' exit order (GPUWHY_TRACE_PM_EXIT_AS_BEFORE=
 *      order) the teardown finds it still running. 9b/9c: the device is
 *      the one with the program's context, LOCAL_RANK's among several
 * Usage: tracer_selftest <libgpuwhy-tracer.so> <libcupti-fake.so> <libcupti-fake-pm.so> */
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cupti.h>

#include "sources/trace_reader.h"

static const char *tracer_path, *fake_cupti_path, *fake_cupti_pm_path;
static int failures;

#define EXPECT(cond, ...)                                                                                              \
  do {                                                                                                                 \
    if (!(cond)) {                                                                                                     \
      fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #cond);                                                  \
      fprintf(stderr, __VA_ARGS__);                                                                                    \
      fputc('\n', stderr);                                                                                             \
      failures++;                                                                                                      \
    }                                                                                                                  \
  } while (0)

struct counts {
  uint32_t cupti_version;
  int notes, error_notes, warn_notes, names, kernels, nccl, memcpys, syncs, apis, api_filtered, windows, full_windows,
      launch_counts, dropped, devices, launch_configs_ok;
  uint32_t device_sms;
  uint64_t buffers_refused;
  char first_error[1100];
  char first_warn[1100];
  int edge_notes, edge_notes_program_thread; /* "window edges:" notes; those with time on a program thread */
  int pm_samples, pm_samples_half_active;    /* PM_SAMPLE records; those with the fake's 50% SM activity */
  uint32_t pm_device;                        /* the device of the last PM_SAMPLE */
  char pm_on[300], pm_stopped[480];          /* the "PM sampling on:" and "PM sampling stopped" notes */
  uint64_t aside_ns, back_ns;                /* times of the first "stood aside" and "came back" notes */
  int graph_stay_notes, graph_stop_notes;    /* "CUDA graphs in use: ..." and "CUDA graphs appeared after ..." */
  int pause_records, pause_records_nonzero, tracer_edge_records; /* gpuwhy's own OVERHEAD records */
  int own_fallback_notes;                                        /* "... CUPTI is detached at the program's next ..." */
#define MAX_WINDOWS 64
  uint64_t window_start_ns[MAX_WINDOWS], window_end_ns[MAX_WINDOWS];
};

static gw_status c_header(void *ctx, const struct gw_wire_file_header *h) {
  ((struct counts *)ctx)->cupti_version = h->cupti_version;
  return GW_OK;
}
static gw_status c_name(void *ctx, uint32_t pid, uint32_t id, const char *name, uint32_t len) {
  (void)pid, (void)id, (void)name, (void)len;
  ((struct counts *)ctx)->names++;
  return GW_OK;
}
/* c_KIND for a kind the self-test only counts, into counts.FIELD */
#define COUNTING_CALLBACK(kind, field)                                                                                 \
  static gw_status c_##kind(void *ctx, uint32_t pid, const struct gw_wire_##kind *r) {                                 \
    (void)pid, (void)r;                                                                                                \
    ((struct counts *)ctx)->field++;                                                                                   \
    return GW_OK;                                                                                                      \
  }
COUNTING_CALLBACK(memcpy, memcpys)
COUNTING_CALLBACK(sync, syncs)
COUNTING_CALLBACK(launch_count, launch_counts)
/* c_KIND for a kind the self-test counts into counts.FIELD and then looks
 * into with look_KIND(counts, record) */
#define LOOKING_CALLBACK(kind, field)                                                                                  \
  static gw_status c_##kind(void *ctx, uint32_t pid, const struct gw_wire_##kind *r) {                                 \
    (void)pid;                                                                                                         \
    ((struct counts *)ctx)->field++;                                                                                   \
    look_##kind(ctx, r);                                                                                               \
    return GW_OK;                                                                                                      \
  }
static void look_kernel(struct counts *c, const struct gw_wire_kernel *k) {
  if (k->h.flags & GW_WIRE_KERNEL_NCCL)
    c->nccl++;
  /* the fake's launch configuration, carried field by field */
  if (k->grid_x == 64 && k->grid_y == 1 && k->grid_z == 1 && k->block_x == 128 && k->block_y == 1 && k->block_z == 1 &&
      k->regs_per_thread == 40 && k->static_shmem_bytes == 4096 && k->dynamic_shmem_bytes == 8192)
    c->launch_configs_ok++;
}
LOOKING_CALLBACK(kernel, kernels)
static void look_device(struct counts *c, const struct gw_wire_device *d) {
  if (d->max_warps_per_sm == 64 && d->max_blocks_per_sm == 32 && d->max_regs_per_sm == 65536 &&
      d->max_shmem_per_sm_bytes == 233472 && d->cc_major == 9 && d->threads_per_warp == 32)
    c->device_sms = d->sm_count;
}
LOOKING_CALLBACK(device, devices)
static void look_api(struct counts *c, const struct gw_wire_api *a) {
  if (a->cbid != 211)
    c->api_filtered++; /* only cudaLaunchKernel (211) should get through */
}
LOOKING_CALLBACK(api, apis)
static gw_status c_window(void *ctx, uint32_t pid, const struct gw_wire_window *w) {
  (void)pid;
  struct counts *c = ctx;
  if (c->windows < MAX_WINDOWS) {
    c->window_start_ns[c->windows] = w->start_ns;
    c->window_end_ns[c->windows] = w->end_ns;
  }
  c->windows++;
  if (w->mode == GW_WIRE_MODE_FULL)
    c->full_windows++;
  return GW_OK;
}
static void look_pm_sample(struct counts *c, const struct gw_wire_pm_sample *r) {
  c->pm_device = r->device;
  if (r->sm_cycles_elapsed_avg > 0 && r->sm_cycles_active_avg / r->sm_cycles_elapsed_avg > 0.49 &&
      r->sm_cycles_active_avg / r->sm_cycles_elapsed_avg < 0.51 && r->end_ns > r->start_ns)
    c->pm_samples_half_active++;
}
LOOKING_CALLBACK(pm_sample, pm_samples)
static void look_dropped(struct counts *c, const struct gw_wire_dropped *d) {
  c->buffers_refused = d->buffers_refused;
}
LOOKING_CALLBACK(dropped, dropped)

static gw_status c_note(void *ctx, uint32_t pid, const struct gw_wire_note *n, const char *text, uint32_t len) {
  (void)pid;
  struct counts *c = ctx;
  c->notes++;
  if (len >= 13 && strncmp(text, "window edges:", 13) == 0) {
    c->edge_notes++;
    if (!memmem(text, len, "program_thread_ns=0 ", 20))
      c->edge_notes_program_thread++;
  }
  if (len >= 11 && strncmp(text, "stood aside", 11) == 0 && !c->aside_ns)
    c->aside_ns = n->t_ns;
  if (len >= 9 && strncmp(text, "came back", 9) == 0 && !c->back_ns)
    c->back_ns = n->t_ns;
  if (memmem(text, len, "detached at the program's next CUDA call instead", 48))
    c->own_fallback_notes++;
  if (len >= 19 && strncmp(text, "CUDA graphs in use:", 19) == 0)
    c->graph_stay_notes++;
  if (len >= 20 && strncmp(text, "CUDA graphs appeared", 20) == 0)
    c->graph_stop_notes++;
  if (len >= 15 && strncmp(text, "PM sampling on:", 15) == 0)
    snprintf(c->pm_on, sizeof c->pm_on, "%.*s", (int)len, text);
  if (len >= 19 && strncmp(text, "PM sampling stopped", 19) == 0)
    snprintf(c->pm_stopped, sizeof c->pm_stopped, "%.*s", (int)len, text);
  if (n->level == GW_WIRE_NOTE_WARN && !c->warn_notes++)
    snprintf(c->first_warn, sizeof c->first_warn, "%.*s", (int)len, text);
  if (n->level == GW_WIRE_NOTE_ERROR) {
    if (!c->error_notes)
      snprintf(c->first_error, sizeof c->first_error, "%.*s", (int)len, text);
    c->error_notes++;
  }
  return GW_OK;
}

static gw_status c_overhead(void *ctx, uint32_t pid, const struct gw_wire_overhead *o) {
  (void)pid;
  struct counts *c = ctx;
  if (o->overhead_kind == GW_WIRE_OVERHEAD_GW_PROGRAM_PAUSE) {
    c->pause_records++;
    c->pause_records_nonzero += o->end_ns > o->start_ns;
  }
  c->tracer_edge_records += o->overhead_kind == GW_WIRE_OVERHEAD_GW_TRACER_EDGE;
  return GW_OK;
}

/* Reads <dir>/trace-<pid>.gwt; 0 when it is a complete, valid file. */
static int read_trace(const char *dir, pid_t pid, struct counts *c) {
  char path[512];
  snprintf(path, sizeof path, "%s/trace-%d.gwt", dir, (int)pid);
  memset(c, 0, sizeof *c);
  struct gw_trace_callbacks cb = {.ctx = c,
                                  .on_header = c_header,
                                  .on_name = c_name,
                                  .on_kernel = c_kernel,
                                  .on_memcpy = c_memcpy,
                                  .on_sync = c_sync,
                                  .on_api = c_api,
                                  .on_window = c_window,
                                  .on_launch_count = c_launch_count,
                                  .on_dropped = c_dropped,
                                  .on_device = c_device,
                                  .on_overhead = c_overhead,
                                  .on_pm_sample = c_pm_sample,
                                  .on_note = c_note};
  struct gw_trace_reader *rd = NULL;
  struct gw_err err = {{0}};
  if (gw_trace_reader_open(&rd, path, &err) != GW_OK) {
    fprintf(stderr, "%s\n", err.msg);
    return -1;
  }
  int rc = 0;
  if (gw_trace_reader_poll(rd, &cb, NULL, &err) != GW_OK || gw_trace_reader_finish(rd, &err) != GW_OK) {
    fprintf(stderr, "%s\n", err.msg);
    rc = -1;
  }
  gw_trace_reader_close(rd);
  unlink(path);
  return rc;
}

/* The child: environment, stderr into a file, dlopen, InitializeInjection,
 * then what the case asks (0 exit, sleep then exit, SIGTERM). */
/* Full mode against the fake CUPTI. */
#define FULL_WITH_FAKE(dir)                                                                                            \
  "GPUWHY_TRACE_DIR", dir, "GPUWHY_TRACE_CUPTI_LIB", fake_cupti_path, "GPUWHY_TRACE_MODE", "full"

/* Sampled mode against the fake CUPTI: 50 ms windows every 100 ms, CUPTI
 * kept attached between windows (a case that wants the default detach sets
 * GPUWHY_TRACE_DETACH after this: the last value wins). */
#define SAMPLED_50_OF_100(dir)                                                                                         \
  "GPUWHY_TRACE_DIR", dir, "GPUWHY_TRACE_CUPTI_LIB", fake_cupti_path, "GPUWHY_TRACE_MODE", "sampled",                  \
      "GPUWHY_TRACE_WINDOW_MS", "50", "GPUWHY_TRACE_PERIOD_MS", "100", "GPUWHY_TRACE_DETACH", "0"
/* Sampled mode with its first window at once and CUPTI detached between
 * windows. */
#define SAMPLED_DETACHING_AT_ONCE(dir)                                                                                 \
  SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_DETACH", "1"
/* Sampled mode with the default window end (detach_own: GPUWHY_TRACE_DETACH
 * unset after the macro's 0) and the fake's cuDriverGetVersion to call. */
#define SAMPLED_DEFAULT_END_WITH_DRIVER(dir)                                                                           \
  SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_DETACH", NULL,                             \
      "GPUWHY_TRACE_CUDA_DRIVER_LIB", fake_cupti_path

enum ending {
  END_EXIT,
  END_SLEEP_EXIT,
  END_SIGTERM,
  END_API_CALLS,
  END_SECOND_CLIENT,
  END_GRAPHS_FIRST,
  END_GRAPHS_LATER,
  END_PM_SLEEP_EXIT
};

/* The second client's side of case 8: its own buffers and what reached them. */
static _Alignas(8) unsigned char client_buffer[1 << 16];
static int client_kernels;
static CUptiResult (*client_next_record)(uint8_t *, size_t, CUpti_Activity **);

static void client_request(uint8_t **buffer, size_t *size, size_t *max_records) {
  *buffer = client_buffer;
  *size = sizeof client_buffer;
  *max_records = 0;
}
static void client_complete(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
  (void)ctx, (void)stream, (void)size;
  CUpti_Activity *rec = NULL;
  while (client_next_record(buffer, valid, &rec) == CUPTI_SUCCESS)
    if (rec->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL)
      client_kernels++;
}
static void client_callback(void *data, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *info) {
  (void)data, (void)domain, (void)cbid, (void)info;
}

/* A Kineto-like client 150 ms into the run: subscribe and register buffers
 * through the tracer's interposers (as the dynamic linker binds them when the
 * tracer is in LD_PRELOAD), switch kernel records on, flush once (what was
 * pending), wait 250 ms (the tracer would open and close windows twice),
 * flush again: only kernels of a kind still on reach the client, and only
 * if its buffers are still the registered ones. Then it unsubscribes and
 * the program runs 300 ms more. The exit status: 0 when it got kernels in
 * the second flush, else the step that failed. */
static int second_client(void *tracer) {
  void *fake = dlopen(fake_cupti_path, RTLD_NOW | RTLD_NOLOAD);
  __typeof__(&cuptiSubscribe) subscribe = (__typeof__(&cuptiSubscribe))dlsym(tracer, "cuptiSubscribe");
  __typeof__(&cuptiActivityRegisterCallbacks) reg =
      (__typeof__(&cuptiActivityRegisterCallbacks))dlsym(tracer, "cuptiActivityRegisterCallbacks");
  __typeof__(&cuptiUnsubscribe) unsubscribe = (__typeof__(&cuptiUnsubscribe))dlsym(tracer, "cuptiUnsubscribe");
  __typeof__(&cuptiActivityEnable) enable =
      fake ? (__typeof__(&cuptiActivityEnable))dlsym(fake, "cuptiActivityEnable") : NULL;
  __typeof__(&cuptiActivityFlushAll) flush =
      fake ? (__typeof__(&cuptiActivityFlushAll))dlsym(fake, "cuptiActivityFlushAll") : NULL;
  client_next_record = fake ? (__typeof__(client_next_record))dlsym(fake, "cuptiActivityGetNextRecord") : NULL;
  if (!subscribe || !reg || !unsubscribe || !enable || !flush || !client_next_record)
    return 20;
  usleep(150 * 1000);
  CUpti_SubscriberHandle h = NULL;
  if (subscribe(&h, client_callback, NULL) != CUPTI_SUCCESS)
    return 21;
  if (reg(client_request, client_complete) != CUPTI_SUCCESS)
    return 22;
  enable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
  flush(0);
  client_kernels = 0;
  usleep(250 * 1000);
  flush(0);
  int got = client_kernels;
  if (unsubscribe(h) != CUPTI_SUCCESS)
    return 23;
  usleep(300 * 1000);
  return got > 0 ? 0 : 24;
}

static pid_t run_child(const char *const *env, const char *stderr_path, enum ending ending) {
  fflush(NULL); /* the child's exit() must not print the parent's buffered lines again */
  pid_t pid = fork();
  if (pid != 0)
    return pid;
  for (size_t i = 0; env[i]; i += 2) {
    if (env[i + 1])
      setenv(env[i], env[i + 1], 1);
    else
      unsetenv(env[i]);
  }
  int fd = open(stderr_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
  if (fd >= 0) {
    dup2(fd, STDERR_FILENO);
    close(fd);
  }
  /* The PM fake also stands for the CUDA driver, whose functions the tracer
   * finds among the process's global symbols (libcuda is loaded there). */
  if (ending == END_PM_SLEEP_EXIT && !dlopen(fake_cupti_pm_path, RTLD_NOW | RTLD_GLOBAL))
    _exit(15);
  void *lib = dlopen(tracer_path, RTLD_NOW | RTLD_LOCAL);
  if (!lib)
    _exit(10);
  int (*init)(void) = (int (*)(void))dlsym(lib, "InitializeInjection");
  if (!init)
    _exit(11);
  if (init() != 1)
    _exit(12);
  if (ending == END_SLEEP_EXIT || ending == END_PM_SLEEP_EXIT)
    usleep(450 * 1000);
  if (ending == END_API_CALLS || ending == END_GRAPHS_FIRST || ending == END_GRAPHS_LATER) {
    /* A program calling CUDA every millisecond for about 450 ms; the exit
     * status says how often CUPTI was finalized. With graphs, the Python
     * hook's call at a capture's start comes first or after 200 ms. */
    void *fake = dlopen(fake_cupti_path, RTLD_NOW | RTLD_NOLOAD);
    void (*api_call)(void) = fake ? (void (*)(void))dlsym(fake, "fake_cupti_api_call") : NULL;
    int (*finalized)(void) = fake ? (int (*)(void))dlsym(fake, "fake_cupti_finalize_count") : NULL;
    void (*graphs)(void) = (void (*)(void))dlsym(lib, "gpuwhy_tracer_cuda_graphs_in_use");
    if (!api_call || !finalized || !graphs)
      _exit(14);
    int (*program_calls)(void) = fake ? (int (*)(void))dlsym(fake, "fake_cupti_program_thread_calls") : NULL;
    int (*program_finalizes)(void) = fake ? (int (*)(void))dlsym(fake, "fake_cupti_program_thread_finalizes") : NULL;
    int (*kinds_on)(void) = fake ? (int (*)(void))dlsym(fake, "fake_cupti_kinds_on") : NULL;
    if (!program_calls || !program_finalizes || !kinds_on)
      _exit(15);
    int quiet_samples = 0; /* calls that found no activity kind of any sort on in CUPTI */
    for (int i = 0; i < 450; i++) {
      if ((ending == END_GRAPHS_FIRST && i == 0) || (ending == END_GRAPHS_LATER && i == 200))
        graphs();
      api_call();
      quiet_samples += kinds_on() == 0;
      usleep(1000);
    }
    /* What the fake saw, for the parent: <dir>/fake_report.txt */
    char report[600];
    snprintf(report, sizeof report, "%s/fake_report.txt", getenv("GPUWHY_TRACE_DIR"));
    FILE *f = fopen(report, "w");
    if (f) {
      fprintf(f, "%d %d %d\n", program_calls(), program_finalizes(), quiet_samples);
      fclose(f);
    }
    exit(finalized());
  }
  if (ending == END_SECOND_CLIENT)
    exit(second_client(lib));
  if (ending == END_SIGTERM) {
    usleep(50 * 1000);
    raise(SIGTERM);
    usleep(5 * 1000 * 1000); /* must not be reached: the default action ends us */
    _exit(13);
  }
  exit(0); /* a normal exit runs the tracer's atexit flush */
}

static int wait_child(pid_t pid, int *signaled) {
  int status = 0;
  waitpid(pid, &status, 0);
  *signaled = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* What the fake CUPTI saw in an END_API_CALLS child: CUPTI state calls
 * made on the program's thread, how many of them were cuptiFinalize, and
 * how many of the program's calls found every activity kind off. */
struct fake_report {
  int program_calls, program_finalizes, quiet_samples;
};

static void read_fake_report(const char *dir, struct fake_report *r) {
  char path[600];
  snprintf(path, sizeof path, "%s/fake_report.txt", dir);
  r->program_calls = r->program_finalizes = r->quiet_samples = -1;
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  if (fscanf(f, "%d %d %d", &r->program_calls, &r->program_finalizes, &r->quiet_samples) != 3)
    r->program_calls = -1;
  fclose(f);
  unlink(path);
}

/* Lines in the child's stderr that start with the tracer's prefix, and all lines. */
static void stderr_lines(const char *path, int *ours, int *all, char *first, size_t first_cap) {
  *ours = *all = 0;
  first[0] = 0;
  FILE *f = fopen(path, "r");
  if (!f)
    return;
  char line[2048];
  while (fgets(line, sizeof line, f)) {
    (*all)++;
    if (strncmp(line, "gpuwhy-tracer: ", 15) == 0) {
      if (!*ours)
        snprintf(first, first_cap, "%s", line);
      (*ours)++;
    }
  }
  fclose(f);
}

/* Runs a case whose trace file must be valid, read into *c; returns the
 * child's exit status (-1 when a signal ended it, the signal in *sig). */
static int run_and_read(const char *const *env, const char *err_path, enum ending ending, const char *dir,
                        struct counts *c, int *sig) {
  pid_t pid = run_child(env, err_path, ending);
  int code = wait_child(pid, sig);
  EXPECT(read_trace(dir, pid, c) == 0, "no valid trace file");
  return code;
}

/* Runs a case that must end with exit status 0 and leave a valid file, read into *c. */
static void run_clean(const char *const *env, const char *err_path, enum ending ending, const char *dir,
                      struct counts *c) {
  int sig = 0;
  int code = run_and_read(env, err_path, ending, dir, c, &sig);
  EXPECT(code == 0 && sig == 0, "child exit %d signal %d", code, sig);
}

/* Case 9 and its variants: full mode with PM sampling from the first moment
 * (every 10 ms) against the PM fake, about 450 ms, then exit. */
#define PM_WITH_FAKE(dir)                                                                                              \
  "GPUWHY_TRACE_DIR", dir, "GPUWHY_TRACE_CUPTI_LIB", fake_cupti_pm_path, "GPUWHY_TRACE_MODE", "full",                  \
      "GPUWHY_TRACE_PM_SAMPLING", "1", "GPUWHY_TRACE_PM_DELAY_MS", "50", "GPUWHY_TRACE_PM_INTERVAL_MS", "10"

static int file_has(const char *path, const char *text) {
  FILE *f = fopen(path, "r");
  if (!f)
    return 0;
  char line[2048];
  int found = 0;
  while (!found && fgets(line, sizeof line, f))
    found = strstr(line, text) != NULL;
  fclose(f);
  return found;
}

static void pm_sampling_cases(const char *dir, const char *err_path) {
  struct counts c;
  int ours, all, sig;
  char first[2048];
  /* 9. Exit while sampling: stopped, disabled and deinitialised before the
   * library's own exit teardown, no sanitizer report, all samples kept. */
  {
    const char *env[] = {PM_WITH_FAKE(dir), NULL};
    run_clean(env, err_path, END_PM_SLEEP_EXIT, dir, &c);
    stderr_lines(err_path, &ours, &all, first, sizeof first);
    EXPECT(all == 0 && !file_has(err_path, "fake-cupti:") && !file_has(err_path, "Sanitizer"),
           "%d stderr lines, the fake's exit teardown or a sanitizer spoke: see %s", all, err_path);
    /* 450 ms at 10 ms: 45; a loaded machine delays the start, not the rate. */
    EXPECT(c.pm_samples >= 15 && c.pm_samples_half_active == c.pm_samples && c.pm_device == 0,
           "%d PM samples, %d at the fake's 50%%, device %u", c.pm_samples, c.pm_samples_half_active, c.pm_device);
    EXPECT(strstr(c.pm_on, "device 0 (GH100, the device of the program's CUDA context)") != NULL, "on note: %s",
           c.pm_on);
    EXPECT(strstr(c.pm_stopped, "at exit") && strstr(c.pm_stopped, "Stop 0, Disable 0, host deinitialise 0"),
           "stopped note: %s", c.pm_stopped);
    /* the sampler thread's own CPU time, the host side of its cost */
    EXPECT(strstr(c.pm_stopped, "sampler thread CPU ") && strstr(c.pm_stopped, " ms per second over "),
           "stopped note without the thread's CPU time: %s", c.pm_stopped);
    EXPECT(c.error_notes == 0 && c.warn_notes == 0 && c.kernels >= 3, "error: %s warning: %s, %d kernels",
           c.first_error, c.first_warn, c.kernels);
    printf("case 9 (PM sampling, exit while sampling): %d samples; %s\n", c.pm_samples, c.pm_stopped);
  }
  /* 9a. The first versions' exit order: the library's teardown runs first
   * and finds the sampler still enabled (under a sanitizer the tracer's
   * later Stop on the freed sampler is then reported). */
  {
    const char *env[] = {PM_WITH_FAKE(dir), "GPUWHY_TRACE_PM_EXIT_AS_BEFORE", "order", NULL};
    pid_t pid = run_child(env, err_path, END_PM_SLEEP_EXIT);
    int code = wait_child(pid, &sig);
    EXPECT(file_has(err_path, "fake-cupti: a PM sampler still enabled at exit was freed under its client"),
           "the old exit order went unnoticed (exit %d, signal %d)", code, sig);
    char path[512];
    snprintf(path, sizeof path, "%s/trace-%d.gwt", dir, (int)pid);
    unlink(path);
    printf("case 9a (the first versions' exit order): the library's exit teardown found the sampler running, "
           "exit %d signal %d\n",
           code, sig);
  }
  /* 9b. The device with the program's context, of four. */
  {
    const char *env[] = {PM_WITH_FAKE(dir), "FAKE_CUDA_DEVICES", "4", "FAKE_CUDA_ACTIVE_MASK", "4", NULL};
    run_clean(env, err_path, END_PM_SLEEP_EXIT, dir, &c);
    EXPECT(c.pm_samples >= 15 && c.pm_device == 2 && strstr(c.pm_on, "device 2 (GH100, the device of the program's"),
           "%d samples of device %u; %s", c.pm_samples, c.pm_device, c.pm_on);
  }
  /* 9c. Contexts on devices 0 and 2 (a rank that touched device 0 too):
   * LOCAL_RANK's device. */
  {
    const char *env[] = {
        PM_WITH_FAKE(dir), "FAKE_CUDA_DEVICES", "4", "FAKE_CUDA_ACTIVE_MASK", "5", "LOCAL_RANK", "2", NULL};
    run_clean(env, err_path, END_PM_SLEEP_EXIT, dir, &c);
    EXPECT(c.pm_samples >= 15 && c.pm_device == 2 && strstr(c.pm_on, "device 2 (GH100, the device of LOCAL_RANK)"),
           "%d samples of device %u; %s", c.pm_samples, c.pm_device, c.pm_on);
    printf("case 9b/9c (device): %s\n", c.pm_on);
  }
}

int main(int argc, char **argv) {
  if (argc != 4) {
    fprintf(stderr, "usage: %s <libgpuwhy-tracer.so> <libcupti-fake.so> <libcupti-fake-pm.so>\n", argv[0]);
    return 2;
  }
  tracer_path = argv[1];
  fake_cupti_path = argv[2];
  fake_cupti_pm_path = argv[3];
  char dir[] = "/tmp/gw_tracer_selftest_XXXXXX";
  if (!mkdtemp(dir))
    return 2;
  char err_path[600];
  snprintf(err_path, sizeof err_path, "%s/stderr.txt", dir);
  struct counts c;
  int ours, all, sig, code;
  char first[2048];

  /* 1. No libcupti anywhere. (This machine may have one on the loader path,
   * so the test names a file that does not exist.) */
  {
    const char *env[] = {"GPUWHY_TRACE_DIR", dir, "GPUWHY_TRACE_CUPTI_LIB", "/nonexistent/libcupti.so.13", NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.cupti_version == 0, "cupti version %u", c.cupti_version);
    EXPECT(c.error_notes == 1 && c.notes == 1, "%d notes, %d errors", c.notes, c.error_notes);
    EXPECT(strstr(c.first_error, "cannot load") != NULL, "note: %s", c.first_error);
    stderr_lines(err_path, &ours, &all, first, sizeof first);
    EXPECT(ours == 1 && all == 1, "%d tracer lines of %d: %s", ours, all, first);
    printf("case 1 (no libcupti): %s", first);
  }
  /* 2. Not asked to trace. */
  {
    const char *env[] = {"GPUWHY_TRACE_DIR", NULL, NULL};
    pid_t pid = run_child(env, err_path, END_EXIT);
    code = wait_child(pid, &sig);
    EXPECT(code == 0 && sig == 0, "child exit %d signal %d", code, sig);
    char path[512];
    snprintf(path, sizeof path, "%s/trace-%d.gwt", dir, (int)pid);
    EXPECT(access(path, F_OK) != 0, "a file was written without GPUWHY_TRACE_DIR");
  }
  /* 3. Another CUPTI client holds the subscription. */
  {
    const char *env[] = {
        "GPUWHY_TRACE_DIR", dir, "GPUWHY_TRACE_CUPTI_LIB", fake_cupti_path, "FAKE_CUPTI_SUBSCRIBE_RC", "39", NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.cupti_version == 130001, "cupti version %u", c.cupti_version);
    EXPECT(c.error_notes == 0 && c.warn_notes == 1 && strstr(c.first_warn, "another CUPTI client") &&
               strstr(c.first_warn, "stands aside"),
           "error: %s warning: %s", c.first_error, c.first_warn);
    EXPECT(c.kernels == 0 && c.aside_ns != 0 && c.back_ns == 0, "%d kernels", c.kernels);
    stderr_lines(err_path, &ours, &all, first, sizeof first);
    EXPECT(ours == 1 && all == 1, "%d tracer lines of %d", ours, all);
    printf("case 3 (second CUPTI client): %s", first);
  }
  /* 3c. The client that held CUPTI at start leaves after 150 ms: the tracer
   * comes back at a window and traces. */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "FAKE_CUPTI_BUSY_MS", "150", NULL};
    run_clean(env, err_path, END_SLEEP_EXIT, dir, &c);
    EXPECT(c.aside_ns != 0 && c.back_ns > c.aside_ns, "aside %llu back %llu", (unsigned long long)c.aside_ns,
           (unsigned long long)c.back_ns);
    EXPECT(c.windows >= 1 && c.kernels >= 3 && c.error_notes == 0, "%d windows %d kernels, error: %s", c.windows,
           c.kernels, c.first_error);
    printf("case 3c (client leaves, tracer comes back): back after %.0f ms, %d windows, %d kernels\n",
           (double)(c.back_ns - c.aside_ns) / 1e6, c.windows, c.kernels);
  }
  /* 3b. A CUPTI of another major version. */
  {
    const char *env[] = {"GPUWHY_TRACE_DIR",
                         dir,
                         "GPUWHY_TRACE_CUPTI_LIB",
                         fake_cupti_path,
                         "FAKE_CUPTI_SUBSCRIBE_RC",
                         "0",
                         "FAKE_CUPTI_VERSION",
                         "24",
                         NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.error_notes == 1 && strstr(c.first_error, "CUPTI 13 only"), "note: %s", c.first_error);
  }
  /* 4. Full mode, normal exit. */
  {
    const char *env[] = {"GPUWHY_TRACE_DIR",
                         dir,
                         "GPUWHY_TRACE_CUPTI_LIB",
                         fake_cupti_path,
                         "FAKE_CUPTI_VERSION",
                         "130001",
                         "GPUWHY_TRACE_MODE",
                         "full",
                         NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.error_notes == 0, "error: %s", c.first_error);
    EXPECT(c.kernels >= 3 && c.kernels % 3 == 0, "%d kernels", c.kernels);
    EXPECT(c.nccl == c.kernels / 3, "%d NCCL of %d kernels", c.nccl, c.kernels);
    EXPECT(c.names == 3, "%d names (3 distinct kernel names)", c.names);
    EXPECT(c.memcpys >= 1 && c.syncs >= 1, "%d memcpy %d sync", c.memcpys, c.syncs);
    EXPECT(c.apis >= 1 && c.api_filtered == 0, "%d api, %d noise", c.apis, c.api_filtered);
    EXPECT(c.full_windows == 1, "%d full windows", c.full_windows);
    EXPECT(c.launch_configs_ok == c.kernels, "%d of %d kernels with the launch configuration", c.launch_configs_ok,
           c.kernels);
    EXPECT(c.devices == 1 && c.device_sms == 132, "%d device records, %u SMs", c.devices, c.device_sms);
    stderr_lines(err_path, &ours, &all, first, sizeof first);
    EXPECT(all == 0, "unexpected stderr: %s", first);
    printf("case 4 (full): %d kernels, %d NCCL, %d api\n", c.kernels, c.nccl, c.apis);
  }
  /* 4d. Full mode, API calls from CUPTI's callbacks (GPUWHY_TRACE_API_PATH=
   * callback): each of the program's 450 calls becomes one API record,
   * timed in its enter and exit callbacks, through the per-thread ring. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), "GPUWHY_TRACE_API_PATH", "callback", NULL};
    run_clean(env, err_path, END_API_CALLS, dir, &c);
    EXPECT(c.apis >= 450 && c.api_filtered == 0 && c.error_notes == 0 && c.notes == 1,
           "%d api records for 450 calls, %d noise, %d notes, error: %s", c.apis, c.api_filtered, c.notes,
           c.first_error);
    EXPECT(c.kernels >= 3 && c.full_windows == 1, "%d kernels %d windows", c.kernels, c.full_windows);
    printf("case 4d (full, API calls from callbacks): %d api records for 450 calls\n", c.apis);
  }
  /* 4b. A value the tracer does not know: the default, one warning. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), "GPUWHY_TRACE_KERNEL_KIND", "bogus", NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(
        c.warn_notes == 1 &&
            strstr(c.first_warn, "GPUWHY_TRACE_KERNEL_KIND=bogus is not one of concurrent, serial; using concurrent"),
        "warning: %s", c.first_warn);
    EXPECT(c.kernels >= 3, "%d kernels", c.kernels);
  }
  /* 4b2. PM sampling asked for from a libcupti without it (the fake has
   * only a stub cuptiPmSamplingEnable): one warning naming the first missing
   * function, and
   * kernel tracing goes on. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), "GPUWHY_TRACE_PM_SAMPLING", "1", NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.warn_notes == 1 && strstr(c.first_warn, "PM sampling off: libcupti lacks cuptiProfilerInitialize"),
           "%d warnings: %s", c.warn_notes, c.first_warn);
    EXPECT(c.kernels >= 3 && c.error_notes == 0, "%d kernels, error: %s", c.kernels, c.first_error);
    printf("case 4b2 (PM sampling without the API): %s\n", c.first_warn);
  }
  /* 4c. A device buffer CUPTI accepts: no note; one it refuses: one
   * warning, and tracing goes on with CUPTI's default. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), "GPUWHY_TRACE_DEVICE_BUFFER_MB", "64", NULL};
    run_clean(env, err_path, END_EXIT, dir, &c);
    EXPECT(c.warn_notes == 0 && c.error_notes == 0, "warning: %s error: %s", c.first_warn, c.first_error);
    const char *refused[] = {FULL_WITH_FAKE(dir), "GPUWHY_TRACE_DEVICE_BUFFER_MB", "512", NULL};
    run_clean(refused, err_path, END_EXIT, dir, &c);
    EXPECT(c.warn_notes == 1 && strstr(c.first_warn, "refused a device buffer of 512 MB"), "warning: %s", c.first_warn);
    EXPECT(c.kernels >= 3 && c.error_notes == 0, "%d kernels, error: %s", c.kernels, c.first_error);
    /* sampled: set once, not again at each window's attach */
    const char *sampled[] = {SAMPLED_DETACHING_AT_ONCE(dir), "GPUWHY_TRACE_DEVICE_BUFFER_MB", "512", NULL};
    int finalized = run_and_read(sampled, err_path, END_API_CALLS, dir, &c, &sig);
    EXPECT(finalized >= 1 && c.windows >= 2, "%d windows, %d finalized", c.windows, finalized);
    EXPECT(c.warn_notes == 1, "%d warnings over %d windows: %s", c.warn_notes, c.windows, c.first_warn);
    printf("case 4c (device buffer refused): %s\n", c.first_warn);
  }
  /* 5. Sampled mode with launch counting on: windows of 50 ms every 100 ms
   * for about 450 ms. */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_COUNT_LAUNCHES", "1", NULL};
    run_clean(env, err_path, END_SLEEP_EXIT, dir, &c);
    EXPECT(c.error_notes == 0, "error: %s", c.first_error);
    EXPECT(c.windows >= 2 && c.full_windows == 0, "%d windows", c.windows);
    EXPECT(c.launch_counts >= 2, "%d launch counts", c.launch_counts);
    EXPECT(c.kernels >= 3, "%d kernels", c.kernels);
    EXPECT(c.devices == 1 && c.device_sms == 132, "%d device records, %u SMs (sampled)", c.devices, c.device_sms);
    printf("case 5 (sampled): %d windows, %d launch counts, %d kernels\n", c.windows, c.launch_counts, c.kernels);
  }
  /* 5b. Sampled mode, CUPTI detached between windows by default: no
   * GPUWHY_TRACE_DETACH here (unset after the macro's 0). The default,
   * detach_own, finds no cuDriverGetVersion in this process (no libcuda):
   * one info NOTE, and the detach runs at the program's next call instead. */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_DETACH", NULL, NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    EXPECT(c.error_notes == 0 && c.warn_notes == 0, "error: %s warning: %s", c.first_error, c.first_warn);
    EXPECT(c.windows >= 2 && c.full_windows == 0, "%d windows", c.windows);
    /* Every closed window was followed by a detach; the last may still be open at exit. */
    EXPECT(finalized >= 1 && (finalized == c.windows || finalized == c.windows - 1), "%d finalized, %d windows",
           finalized, c.windows);
    EXPECT(c.kernels >= 3 * finalized, "%d kernels for %d detached windows", c.kernels, finalized);
    EXPECT(c.edge_notes >= 1 && c.edge_notes_program_thread == c.edge_notes, "%d edge notes, %d with program time",
           c.edge_notes, c.edge_notes_program_thread);
    EXPECT(c.own_fallback_notes == 1, "%d fallback notes", c.own_fallback_notes);
    struct fake_report r;
    read_fake_report(dir, &r);
    EXPECT(r.program_finalizes == finalized && r.program_calls == finalized,
           "%d CUPTI state calls on the program thread, %d of them cuptiFinalize, for %d detaches", r.program_calls,
           r.program_finalizes, finalized);
    EXPECT(c.pause_records == c.edge_notes && c.pause_records_nonzero == c.pause_records &&
               c.tracer_edge_records == c.edge_notes,
           "%d pause records (%d non-zero), %d tracer edge records, %d edge notes", c.pause_records,
           c.pause_records_nonzero, c.tracer_edge_records, c.edge_notes);
    printf("case 5b (sampled, default without a driver: detached at the program's call): %d windows, %d finalized, %d "
           "kernels\n",
           c.windows, finalized, c.kernels);
  }
  /* 5g. The default (detach_own) with a driver to call: cuptiFinalize on the
   * tracer's own thread, at the exit of its own cuDriverGetVersion; the
   * program's thread makes no CUPTI state call at all, and every window's
   * pause record is zero-length. */
  {
    const char *env[] = {SAMPLED_DEFAULT_END_WITH_DRIVER(dir), NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    struct fake_report r;
    read_fake_report(dir, &r);
    EXPECT(c.error_notes == 0 && c.warn_notes == 0 && c.own_fallback_notes == 0, "error: %s warning: %s, %d fallbacks",
           c.first_error, c.first_warn, c.own_fallback_notes);
    EXPECT(c.windows >= 2 && finalized >= 1 && (finalized == c.windows || finalized == c.windows - 1),
           "%d windows, %d finalized", c.windows, finalized);
    EXPECT(r.program_calls == 0 && r.program_finalizes == 0,
           "%d CUPTI state calls (%d cuptiFinalize) on the program's thread", r.program_calls, r.program_finalizes);
    EXPECT(c.kernels >= 3 * finalized, "%d kernels for %d detached windows", c.kernels, finalized);
    EXPECT(c.edge_notes >= 1 && c.edge_notes_program_thread == 0 && c.pause_records == c.edge_notes &&
               c.pause_records_nonzero == 0,
           "%d edge notes (%d with program time), %d pause records (%d non-zero)", c.edge_notes,
           c.edge_notes_program_thread, c.pause_records, c.pause_records_nonzero);
    printf("case 5g (sampled, detached on the tracer's thread): %d windows, %d finalized, program thread: %d CUPTI "
           "calls\n",
           c.windows, finalized, r.program_calls);
  }
  /* 5h. Quiet: attached, but every kind (DEVICE too) and callback off
   * between windows, from the tracer's thread; no cuptiFinalize. */
  {
    const char *env[] = {
        SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_WINDOW_END", "quiet", NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    struct fake_report r;
    read_fake_report(dir, &r);
    EXPECT(sig == 0 && finalized == 0, "exit %d (cuptiFinalize runs), signal %d", finalized, sig);
    EXPECT(c.error_notes == 0 && c.warn_notes == 0, "error: %s warning: %s", c.first_error, c.first_warn);
    EXPECT(r.program_calls == 0, "%d CUPTI state calls on the program's thread", r.program_calls);
    /* Between windows (about half the calls) no kind at all is on. */
    EXPECT(r.quiet_samples >= 100, "%d of 450 calls found every kind off", r.quiet_samples);
    EXPECT(c.windows >= 2 && c.kernels >= 3 * (c.windows - 1) && c.pause_records >= 1 && c.pause_records_nonzero == 0,
           "%d windows %d kernels, %d pause records (%d non-zero)", c.windows, c.kernels, c.pause_records,
           c.pause_records_nonzero);
    printf("case 5h (sampled, quiet between windows): %d windows, %d kernels, %d of 450 calls with every kind off\n",
           c.windows, c.kernels, r.quiet_samples);
  }
  /* 5e. CUDA graphs known before the first window: CUPTI is never taken
   * out (taking it out and back in crashed graph replays on the H200). */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_DETACH", NULL, NULL};
    int finalized = run_and_read(env, err_path, END_GRAPHS_FIRST, dir, &c, &sig);
    EXPECT(sig == 0 && finalized == 0, "%d finalized (none expected), signal %d", finalized, sig);
    EXPECT(c.windows >= 2 && c.graph_stay_notes == 1, "%d windows, %d stay notes", c.windows, c.graph_stay_notes);
    printf("case 5e (graphs from the start): %d windows, %d finalized\n", c.windows, finalized);
  }
  /* 5f. Graphs begin after CUPTI was taken out: no window re-attaches it. */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", "GPUWHY_TRACE_DETACH", NULL, NULL};
    int finalized = run_and_read(env, err_path, END_GRAPHS_LATER, dir, &c, &sig);
    EXPECT(sig == 0 && finalized >= 1, "%d finalized, signal %d", finalized, sig);
    EXPECT(c.graph_stop_notes + c.graph_stay_notes == 1, "%d stop notes, %d stay notes", c.graph_stop_notes,
           c.graph_stay_notes);
    /* Stopped: no window after the last detach (each would have re-attached).
     * Stayed (the call came while attached): no detach after it. */
    EXPECT(!c.graph_stop_notes || c.windows <= finalized + 1, "%d windows for %d detaches", c.windows, finalized);
    EXPECT(!c.graph_stay_notes || finalized <= 3, "%d detaches in 450 ms, graphs known after 200 ms", finalized);
    printf("case 5f (graphs after a detach): %d windows, %d finalized, %s\n", c.windows, finalized,
           c.graph_stop_notes ? "windows stopped" : "stayed attached");
  }
  /* 5b2. Sampled mode with PM sampling asked for: CUPTI stays attached
   * (cuptiFinalize after a window would take the PM sampler's state away),
   * whatever GPUWHY_TRACE_DETACH says; the fake's PM API stops at its first
   * missing function, one warning. */
  {
    const char *env[] = {SAMPLED_DETACHING_AT_ONCE(dir), "GPUWHY_TRACE_PM_SAMPLING", "1", NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    EXPECT(sig == 0 && finalized == 0, "exit %d (cuptiFinalize runs), signal %d", finalized, sig);
    EXPECT(c.windows >= 2, "%d windows", c.windows);
    EXPECT(c.warn_notes == 1 && strstr(c.first_warn, "PM sampling off: libcupti lacks"), "%d warnings: %s",
           c.warn_notes, c.first_warn);
    printf("case 5b2 (sampled with PM sampling: kept attached): %d windows, %d finalized\n", c.windows, finalized);
  }
  /* 5c. Another CUPTI client subscribes while the tracer is detached. */
  {
    const char *env[] = {SAMPLED_DETACHING_AT_ONCE(dir), "FAKE_CUPTI_RESUBSCRIBE_RC", "39", NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    EXPECT(sig == 0 && finalized == 1, "child exit %d signal %d", finalized, sig);
    EXPECT(c.windows == 1 && c.kernels >= 3, "%d windows %d kernels", c.windows, c.kernels);
    EXPECT(c.warn_notes == 1 && strstr(c.first_warn, "took CUPTI"), "warning: %s", c.first_warn);
    stderr_lines(err_path, &ours, &all, first, sizeof first);
    EXPECT(ours == 1 && all == 1, "%d tracer lines of %d", ours, all);
    printf("case 5c (second client while detached): %s", first);
  }
  /* 5d. Sampled mode kept attached (GPUWHY_TRACE_DETACH=0): windows switch kinds on
   * the tracer's thread; nothing runs on the program's thread. */
  {
    const char *env[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", NULL};
    int finalized = run_and_read(env, err_path, END_API_CALLS, dir, &c, &sig);
    EXPECT(sig == 0 && finalized == 0, "exit %d (cuptiFinalize runs), signal %d", finalized, sig);
    EXPECT(c.error_notes == 0 && c.warn_notes == 0, "error: %s warning: %s", c.first_error, c.first_warn);
    EXPECT(c.windows >= 2 && c.kernels >= 3 * (c.windows - 1), "%d windows %d kernels", c.windows, c.kernels);
    EXPECT(c.edge_notes >= c.windows - 1 && c.edge_notes >= 1 && c.edge_notes_program_thread == 0,
           "%d edge notes for %d windows, %d with program time", c.edge_notes, c.windows, c.edge_notes_program_thread);
    struct fake_report r;
    read_fake_report(dir, &r);
    /* Kept attached leaves the DEVICE kind on: never every kind off (what quiet changes). */
    EXPECT(r.program_calls == 0 && r.quiet_samples == 0, "%d CUPTI state calls on the program's thread, %d quiet calls",
           r.program_calls, r.quiet_samples);
    printf("case 5d (sampled, kept attached): %d windows, %d edge notes, %d kernels\n", c.windows, c.edge_notes,
           c.kernels);
  }
  /* 8. A second client arrives through the interposers and leaves again,
   * in sampled mode (kept attached, detaching at the program's call, and
   * the default detaching on the tracer's thread) and in full mode. */
  {
    const char *sampled[] = {SAMPLED_50_OF_100(dir), "GPUWHY_TRACE_FIRST_DELAY_MS", "0", NULL};
    const char *detached[] = {SAMPLED_DETACHING_AT_ONCE(dir), NULL};
    const char *detached_own[] = {SAMPLED_DEFAULT_END_WITH_DRIVER(dir), NULL};
    const char *full[] = {FULL_WITH_FAKE(dir), NULL};
    const char *const *envs[] = {sampled, detached, detached_own, full};
    const char *names[] = {"sampled", "sampled, detaching", "sampled, the default (detach_own)", "full"};
    enum { FULL_ARM = 3 };
    for (int k = 0; k < 4; k++) {
      pid_t pid = run_child(envs[k], err_path, END_SECOND_CLIENT);
      code = wait_child(pid, &sig);
      EXPECT(code == 0 && sig == 0,
             "%s: the client's run ended %d (20 setup, 21 subscribe refused, 22 register, "
             "23 unsubscribe, 24 no kernels of its own), signal %d",
             names[k], code, sig);
      EXPECT(read_trace(dir, pid, &c) == 0, "no valid trace file");
      EXPECT(c.aside_ns != 0 && c.back_ns > c.aside_ns, "%s: aside %llu back %llu", names[k],
             (unsigned long long)c.aside_ns, (unsigned long long)c.back_ns);
      EXPECT(c.warn_notes == 1 && strstr(c.first_warn, "cuptiSubscribe"), "%s: warning: %s", names[k], c.first_warn);
      int overlapping = 0;
      for (int i = 0; i < c.windows && i < MAX_WINDOWS; i++)
        overlapping += c.window_start_ns[i] < c.back_ns && c.window_end_ns[i] > c.aside_ns;
      EXPECT(overlapping == 0, "%s: %d windows overlap the client's session", names[k], overlapping);
      EXPECT(c.windows >= 2 && c.kernels >= 3, "%s: %d windows %d kernels", names[k], c.windows, c.kernels);
      EXPECT(k != FULL_ARM || c.full_windows == 2, "full: %d windows (one before the client, one after)",
             c.full_windows);
      printf("case 8 (second client, %s): aside for %.0f ms, %d windows, %d kernels\n", names[k],
             (double)(c.back_ns - c.aside_ns) / 1e6, c.windows, c.kernels);
    }
  }
  /* 6. SIGTERM with the default action: flushed, and still killed by it. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), NULL};
    code = run_and_read(env, err_path, END_SIGTERM, dir, &c, &sig);
    EXPECT(sig == SIGTERM, "child exit %d signal %d", code, sig);
    EXPECT(c.kernels >= 3 && c.full_windows == 1, "%d kernels %d windows", c.kernels, c.full_windows);
    printf("case 6 (SIGTERM): %d kernels, killed by signal %d\n", c.kernels, sig);
  }
  /* 7. CUPTI holds every buffer of the pool. */
  {
    const char *env[] = {FULL_WITH_FAKE(dir), "FAKE_CUPTI_HOLD_BUFFERS", "8", NULL};
    run_clean(env, err_path, END_SLEEP_EXIT, dir, &c);
    EXPECT(c.kernels == 0, "%d kernels without a buffer", c.kernels);
    EXPECT(c.dropped >= 1 && c.buffers_refused >= 1, "%d DROPPED records, %llu refused", c.dropped,
           (unsigned long long)c.buffers_refused);
    EXPECT(c.full_windows == 1 && c.error_notes == 0, "%d windows, error: %s", c.full_windows, c.first_error);
    printf("case 7 (pool dry): %d DROPPED records, %llu buffer requests refused\n", c.dropped,
           (unsigned long long)c.buffers_refused);
  }
  pm_sampling_cases(dir, err_path);
  unlink(err_path);
  rmdir(dir);
  if (failures) {
    fprintf(stderr, "%d check(s) failed\n", failures);
    return 1;
  }
  printf("tracer self-test passed\n");
  return 0;
}
