/* An LD_PRELOAD shim for scripts/h200/plans/pmcost2.sh: it logs every exit
 * handler as it is registered (__cxa_atexit, which atexit() also ends in),
 * with the time and the library the handler lives in, and again as it runs
 * at exit, so that the log shows which of CUDA's, CUPTI's and torch's exit
 * handlers ran before the tracer's PM sampler was stopped (the first
 * versions of tracer/pm_sampling.c corrupted the heap there). Lines go to
 * the file named by EXIT_ORDER_LOG, "pid ms what", appended.
 * Build: cc -O1 -shared -fPIC -o exit_order_shim.so exit_order_shim.c -ldl */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MAX_HANDLERS 16384

struct handler {
  void (*fn)(void *);
  void *arg;
  const char *lib; /* where fn lives */
  int id;
};

static struct handler handlers[MAX_HANDLERS];
static atomic_int handler_count;
static atomic_int log_fd = -1;

static double ms_now(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void say(const char *fmt, ...) {
  int fd = atomic_load(&log_fd);
  if (fd < 0) {
    const char *path = getenv("EXIT_ORDER_LOG");
    if (!path || !*path)
      return;
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
      return;
    int expected = -1;
    if (!atomic_compare_exchange_strong(&log_fd, &expected, fd)) {
      close(fd);
      fd = expected;
    }
  }
  char line[512];
  int n = snprintf(line, sizeof line, "%d %.1f ", (int)getpid(), ms_now());
  va_list ap;
  va_start(ap, fmt);
  n += vsnprintf(line + n, sizeof line - (size_t)n, fmt, ap);
  va_end(ap);
  if (n > (int)sizeof line - 2)
    n = (int)sizeof line - 2;
  line[n++] = '\n';
  ssize_t ignored = write(fd, line, (size_t)n);
  (void)ignored;
}

static const char *library_of(const void *addr) {
  Dl_info info;
  if (!dladdr(addr, &info) || !info.dli_fname || !*info.dli_fname)
    return "the program";
  const char *slash = strrchr(info.dli_fname, '/');
  return slash ? slash + 1 : info.dli_fname;
}

static void run_logged(void *p) {
  struct handler *h = p;
  say("run #%d in %s", h->id, h->lib);
  h->fn(h->arg);
}

int __cxa_atexit(void (*fn)(void *), void *arg, void *dso) {
  static int (*real)(void (*)(void *), void *, void *);
  if (!real)
    real = (int (*)(void (*)(void *), void *, void *))dlsym(RTLD_NEXT, "__cxa_atexit");
  if (!real)
    return -1;
  int id = atomic_fetch_add(&handler_count, 1);
  if (id >= MAX_HANDLERS)
    return real(fn, arg, dso);
  struct handler *h = &handlers[id];
  h->fn = fn;
  h->arg = arg;
  h->lib = library_of((const void *)fn);
  h->id = id;
  say("register #%d in %s", id, h->lib);
  return real(run_logged, h, dso);
}
