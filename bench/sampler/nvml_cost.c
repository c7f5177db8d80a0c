/* bench/sampler/nvml_cost: CPU time of each NVML call gpuwhy makes, on this
 * machine's driver. Tells which calls the sampler can afford every tick.
 * usage: nvml_cost [CALLS_PER_ROW]   (needs libnvidia-ml.so.1 and a GPU; built with _GNU_SOURCE) */
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

static void *lib;
static fn_t sym(const char *name) {
  fn_t f = (fn_t)dlsym(lib, name);
  if (!f)
    fprintf(stderr, "missing %s\n", name);
  return f;
}

#define ROW(label, expr)                                                                                               \
  do {                                                                                                                 \
    int rc = 0;                                                                                                        \
    double c0 = thread_cpu_us(), w0 = wall_us();                                                                       \
    for (int i = 0; i < n; i++)                                                                                        \
      rc = (expr);                                                                                                     \
    double c1 = thread_cpu_us(), w1 = wall_us();                                                                       \
    printf("%-44s rc %3d  cpu %8.1f us/call  wall %8.1f us/call\n", label, rc, (c1 - c0) / n, (w1 - w0) / n);          \
  } while (0)

int main(int argc, char **argv) {
  int n = argc > 1 ? atoi(argv[1]) : 200;
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
    static struct gpm_get mg;
    static const unsigned gpm_ids[] = {1, 2, 3, 5, 10, 12, 13, 20, 21, 60, 61};
    ROW("nvmlGpmMetricsGet(11 metrics)",
        (memset(&mg, 0, sizeof mg), mg.version = 1, mg.count = 11, mg.s1 = s1, mg.s2 = s2,
         memcpy(&mg.m[0].id, &gpm_ids[0], 4), mg.m[1].id = 2, mg.m[2].id = 3, mg.m[3].id = 5, mg.m[4].id = 10,
         mg.m[5].id = 12, mg.m[6].id = 13, mg.m[7].id = 20, mg.m[8].id = 21, mg.m[9].id = 60, mg.m[10].id = 61,
         gpm_metrics(&mg)));
  }
  return 0;
}
