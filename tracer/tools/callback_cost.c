/* callback_cost: what full mode's callback path (GPUWHY_TRACE_API_PATH=callback) costs in the tracer's own code,
 * per traced CUDA call, without a GPU: the tracer runs against the fake libcupti (fake_cupti.c), whose
 * fake_cupti_api_call() makes the enter and exit callbacks CUPTI would make for one cudaLaunchKernel.
 *   A: full mode, API calls from callbacks: the calls go through on_api_callback (two clock reads, a 48-byte
 *      record into the thread's ring)
 *   B: full mode without API records (GPUWHY_TRACE_API=none): the same fake call, no callback enabled
 * A - B is the tracer's part of one traced call; CUPTI's own dispatch (building CUpti_CallbackData, calling the
 * subscriber twice) comes on top on a real GPU and is not measured here. Also the cost of one
 * clock_gettime(CLOCK_REALTIME), which the path reads twice per call.
 * Calls go in batches of 20000 with a 150 ms pause after each, so that the tracer's thread (draining every
 * 100 ms) keeps the 32768-slot ring from overflowing; only the batches are timed.
 * usage: callback_cost <libgpuwhy-tracer.so> <libcupti-fake.so> [batches]
 * build: cc -std=gnu11 -O2 -I<cuda>/include tracer/tools/callback_cost.c -ldl */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define BATCH_CALLS 20000
#define BATCH_PAUSE_US 150000

static uint64_t mono_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* In a child: the tracer in full mode with the given API setting; writes the ns per call to fd. */
static void measure(const char *tracer, const char *fake, const char *dir, const char *api_path, const char *api,
                    int batches, int fd) {
  setenv("GPUWHY_TRACE_DIR", dir, 1);
  setenv("GPUWHY_TRACE_CUPTI_LIB", fake, 1);
  setenv("GPUWHY_TRACE_MODE", "full", 1);
  setenv("GPUWHY_TRACE_API_PATH", api_path, 1);
  setenv("GPUWHY_TRACE_API", api, 1);
  void *lib = dlopen(tracer, RTLD_NOW | RTLD_LOCAL);
  int (*init)(void) = lib ? (int (*)(void))dlsym(lib, "InitializeInjection") : NULL;
  if (!init || init() != 1)
    _exit(2);
  void *f = dlopen(fake, RTLD_NOW | RTLD_NOLOAD);
  void (*call)(void) = f ? (void (*)(void))dlsym(f, "fake_cupti_api_call") : NULL;
  if (!call)
    _exit(3);
  uint64_t total_ns = 0;
  for (int b = 0; b < batches; b++) {
    uint64_t t0 = mono_ns();
    for (int i = 0; i < BATCH_CALLS; i++)
      call();
    total_ns += mono_ns() - t0;
    usleep(BATCH_PAUSE_US);
  }
  double per_call = (double)total_ns / ((double)batches * BATCH_CALLS);
  if (write(fd, &per_call, sizeof per_call) != sizeof per_call)
    _exit(4);
  exit(0); /* the tracer's exit flush runs */
}

static double run(const char *tracer, const char *fake, const char *dir, const char *api_path, const char *api,
                  int batches) {
  int p[2];
  if (pipe(p) != 0)
    return -1;
  pid_t pid = fork();
  if (pid == 0) {
    close(p[0]);
    measure(tracer, fake, dir, api_path, api, batches, p[1]);
  }
  close(p[1]);
  double v = -1;
  if (read(p[0], &v, sizeof v) != sizeof v)
    v = -1;
  close(p[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  return v;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: %s <libgpuwhy-tracer.so> <libcupti-fake.so> [batches]\n", argv[0]);
    return 2;
  }
  int batches = argc > 3 ? atoi(argv[3]) : 10;
  if (batches < 1)
    batches = 1;
  char dir[] = "/tmp/gw_callback_cost_XXXXXX";
  if (!mkdtemp(dir))
    return 2;
  double off = run(argv[1], argv[2], dir, "activity", "none", batches);
  double on = run(argv[1], argv[2], dir, "callback", "all", batches);
  uint64_t t0 = mono_ns();
  struct timespec ts;
  uint64_t sink = 0;
  for (int i = 0; i < 1000000; i++) {
    clock_gettime(CLOCK_REALTIME, &ts);
    sink += (uint64_t)ts.tv_nsec;
  }
  double clock_ns = (double)(mono_ns() - t0) / 1e6;
  printf("callback_cost: %d x %d calls; no callback %.1f ns/call, callback path %.1f ns/call, the tracer's part "
         "%.1f ns per traced call; clock_gettime(CLOCK_REALTIME) %.1f ns (%llu)\n",
         batches, BATCH_CALLS, off, on, on - off, clock_ns, (unsigned long long)(sink & 1));
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
  return system(cmd) == 0 && off > 0 && on > 0 ? 0 : 1;
}
