/* bench/sampler/nvml_cost: CPU time of each NVML call gpuwhy makes, on this
 * machine's driver. Tells which calls the sampler can afford every tick.
 * usage: nvml_cost [CALLS_PER_ROW [PAUSE_MS]]   (needs libnvidia-ml.so.1 and a GPU; built with _GNU_SOURCE) */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>

/* Only what this benchmark calls: opaque handles, results as int. */
typedef void *dev_t_;
typedef int (*fn_t)();

struct sample16 {
  unsigned long long t_us;
  unsigned long long v;
};
struct field40 {
  unsigned id, scope;
  long long t_us, latency_us;
  int type, ret;
  unsigned long long v;
};
struct gpm_metric40 {
  unsigned id;
  int ret;
  double value;
  char *names[3];
};
struct gpm_get {
  unsigned version, count;
  void *s1, *s2;
  struct gpm_metric40 m[98];
};

static double thread_cpu_us(void) {
  struct rusage ru;
  getrusage(RUSAGE_THREAD, &ru);
  return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e6 + ru.ru_utime.tv_usec + ru.ru_stime.tv_usec;
}
static double wall_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int fill_ids(struct gpm_get *mg, const unsigned *ids, unsigned n) {
  for (unsigned i = 0; i < n; i++)
    mg->m[i].id = ids[i];
  return 0;
}

static void *lib;
static fn_t sym(const char *name) {
  fn_t f = (fn_t)dlsym(lib, name);
  if (!f)
    fprintf(stderr, "missing %s\n", name);
  return f;
}

/* spaced_ms > 0: a pause between calls, timed around each call only. Calls
 * back to back can be answered from NVML's own cache (under a microsecond);
 * a sampler calls once per tick, when that cache has expired. */
static int spaced_ms;

static void pause_between_calls(void) {
  struct timespec ts = {spaced_ms / 1000, (long)(spaced_ms % 1000) * 1000000L};
  nanosleep(&ts, NULL);
}

#define ROW(label, expr)                                                                                               \
  do {                                                                                                                 \
    int rc = 0;                                                                                                        \
    double cpu = 0, wall = 0;                                                                                          \
    for (int i = 0; i < n; i++) {                                                                                      \
      if (spaced_ms > 0)                                                                                               \
        pause_between_calls();                                                                                         \
      double c0 = thread_cpu_us(), w0 = wall_us();                                                                     \
      rc = (expr);                                                                                                     \
      cpu += thread_cpu_us() - c0;                                                                                     \
      wall += wall_us() - w0;                                                                                          \
    }                                                                                                                  \
    printf("%-44s rc %3d  cpu %8.1f us/call  wall %8.1f us/call\n", label, rc, cpu / n, wall / n);                     \
  } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
  spaced_ms = argc > 2 ? atoi(argv[2]) : 0;
  if (n <= 0 || spaced_ms < 0) {
    fprintf(stderr, "usage: nvml_cost [CALLS_PER_ROW [PAUSE_MS]]\n");
    return 2;
  }
  lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!lib) {
    printf("no NVML: %s\n", dlerror());
    return 77;
  }
  if (sym("nvmlInit_v2")() != 0)
    return 1;
  dev_t_ dev;
  sym("nvmlDeviceGetHandleByIndex_v2")(0u, &dev);
  unsigned u;
  unsigned long long ull;
  unsigned long long mem[3];
  unsigned util[2];
  int vtype;
  static struct sample16 samples[256];
  unsigned long long last = 0;
  struct field40 fields[6];
  unsigned ids[6] = {74, 76, 269, 270, 271, 82};
  fn_t power = sym("nvmlDeviceGetPowerUsage"), clock = sym("nvmlDeviceGetClockInfo"),
       reasons = sym("nvmlDeviceGetCurrentClocksEventReasons"), pstate = sym("nvmlDeviceGetPerformanceState"),
       energy = sym("nvmlDeviceGetTotalEnergyConsumption"), meminfo = sym("nvmlDeviceGetMemoryInfo"),
       rates = sym("nvmlDeviceGetUtilizationRates"), getsamples = sym("nvmlDeviceGetSamples"),
       fieldvals = sym("nvmlDeviceGetFieldValues"), temp = sym("nvmlDeviceGetTemperature"),
       procs = sym("nvmlDeviceGetComputeRunningProcesses_v3"), pcie = sym("nvmlDeviceGetPcieThroughput"),
       gpm_alloc = sym("nvmlGpmSampleAlloc"), gpm_get = sym("nvmlGpmSampleGet"), gpm_metrics = sym("nvmlGpmMetricsGet");
  ROW("nvmlDeviceGetPowerUsage", power(dev, &u));
  ROW("nvmlDeviceGetClockInfo(SM)", clock(dev, 1, &u));
  ROW("nvmlDeviceGetCurrentClocksEventReasons", reasons(dev, &ull));
  ROW("nvmlDeviceGetPerformanceState", pstate(dev, &u));
  ROW("nvmlDeviceGetTotalEnergyConsumption", energy(dev, &ull));
  ROW("nvmlDeviceGetMemoryInfo", meminfo(dev, mem));
  ROW("nvmlDeviceGetUtilizationRates", rates(dev, util));
  ROW("nvmlDeviceGetTemperature", temp(dev, 0, &u));
  ROW("nvmlDeviceGetSamples(GPU_UTIL, since last)", (u = 256, getsamples(dev, 1, last, &vtype, &u, samples)));
  ROW("nvmlDeviceGetSamples(GPU_UTIL, all 256)", (u = 256, getsamples(dev, 1, 0ULL, &vtype, &u, samples)));
  ROW("nvmlDeviceGetSamples(TOTAL_POWER, all)", (u = 256, getsamples(dev, 0, 0ULL, &vtype, &u, samples)));
  for (int i = 0; i < 6; i++) {
    memset(&fields[i], 0, sizeof fields[i]);
    fields[i].id = ids[i];
  }
  ROW("nvmlDeviceGetFieldValues(6 fields)", fieldvals(dev, 6, fields));
  for (int k = 0; k < 6; k++) {
    char label[64];
    snprintf(label, sizeof label, "nvmlDeviceGetFieldValues(1 field: %u)", ids[k]);
    struct field40 one;
    memset(&one, 0, sizeof one);
    ROW(label, (one.id = ids[k], fieldvals(dev, 1, &one)));
  }
  unsigned count = 0;
  ROW("nvmlDeviceGetComputeRunningProcesses_v3(size)", (count = 0, procs(dev, &count, NULL)));
  /* The rest of what the once-a-second tick reads. */
  fn_t putil = sym("nvmlDeviceGetProcessUtilization"), gprocs = sym("nvmlDeviceGetGraphicsRunningProcesses_v3"),
       limit = sym("nvmlDeviceGetEnforcedPowerLimit"), gen = sym("nvmlDeviceGetCurrPcieLinkGeneration"),
       width = sym("nvmlDeviceGetCurrPcieLinkWidth"), replay = sym("nvmlDeviceGetPcieReplayCounter"),
       ecc = sym("nvmlDeviceGetTotalEccErrors"), remap = sym("nvmlDeviceGetRemappedRows");
  static unsigned char putil_buf[256 * 64];
  unsigned u2, u3, u4;
  ROW("nvmlDeviceGetProcessUtilization(size)", (count = 0, putil(dev, NULL, &count, 0ULL)));
  ROW("nvmlDeviceGetProcessUtilization(64)", (count = 64, putil(dev, putil_buf, &count, 0ULL)));
  ROW("nvmlDeviceGetGraphicsRunningProcesses_v3(size)", (count = 0, gprocs(dev, &count, NULL)));
  ROW("nvmlDeviceGetEnforcedPowerLimit", limit(dev, &u));
  ROW("nvmlDeviceGetCurrPcieLinkGeneration", gen(dev, &u));
  ROW("nvmlDeviceGetCurrPcieLinkWidth", width(dev, &u));
  ROW("nvmlDeviceGetPcieReplayCounter", replay(dev, &u));
  ROW("nvmlDeviceGetTotalEccErrors(corrected, volatile)", ecc(dev, 0, 0, &ull));
  ROW("nvmlDeviceGetRemappedRows", remap(dev, &u, &u2, &u3, &u4));
  int pn = n < 20 ? n : 20;
  int saved = n;
  n = pn;
  ROW("nvmlDeviceGetPcieThroughput(RX) (20 ms window)", pcie(dev, 1, &u));
  n = saved;
  void *s1 = NULL, *s2 = NULL;
  if (gpm_alloc && gpm_alloc(&s1) == 0 && gpm_alloc(&s2) == 0) {
    ROW("nvmlGpmSampleGet", gpm_get(dev, s1));
    struct timespec ts = {0, 150000000};
    nanosleep(&ts, NULL);
    gpm_get(dev, s2);
    /* Does the cost of computing GPM metrics grow with their number? */
    static const struct {
      const char *label;
      unsigned n, ids[11];
    } sets[] = {
        {"nvmlGpmMetricsGet(1: SM activity)", 1, {2}},
        {"nvmlGpmMetricsGet(1: graphics activity)", 1, {1}},
        {"nvmlGpmMetricsGet(1: SM occupancy)", 1, {3}},
        {"nvmlGpmMetricsGet(1: tensor activity)", 1, {5}},
        {"nvmlGpmMetricsGet(1: DRAM bandwidth)", 1, {10}},
        {"nvmlGpmMetricsGet(2: FP32, FP16)", 2, {12, 13}},
        {"nvmlGpmMetricsGet(2: NVLink rx/tx)", 2, {60, 61}},
        {"nvmlGpmMetricsGet(2: PCIe rx/tx)", 2, {20, 21}},
        {"nvmlGpmMetricsGet(5: gr, SM, occ, tensor, DRAM)", 5, {1, 2, 3, 5, 10}},
        {"nvmlGpmMetricsGet(9: all but NVLink)", 9, {1, 2, 3, 5, 10, 12, 13, 20, 21}},
        {"nvmlGpmMetricsGet(11 metrics)", 11, {1, 2, 3, 5, 10, 12, 13, 20, 21, 60, 61}},
    };
    static struct gpm_get mg;
    for (size_t k = 0; k < sizeof sets / sizeof sets[0]; k++)
      ROW(sets[k].label, (memset(&mg, 0, sizeof mg), mg.version = 1, mg.count = sets[k].n, mg.s1 = s1, mg.s2 = s2,
                          fill_ids(&mg, sets[k].ids, sets[k].n), gpm_metrics(&mg)));
  }
  return 0;
}
