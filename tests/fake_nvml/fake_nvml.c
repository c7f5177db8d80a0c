/* A fake libnvidia-ml for tests: the subset of the NVML ABI that gpuwhy uses,
 * with versioned symbol names, H200-like values and scripted failures. It is
 * loaded through the real dlopen path (gw_nvml_open with its path).
 *
 * Knobs, environment variables read by nvmlInit_v2 each time the library goes
 * from not initialised to initialised (so a test can setenv, open, close, and
 * setenv again):
 *   FAKE_NVML_GPUS=N           number of GPUs, 0..8 (default 1)
 *   FAKE_NVML_INIT_FAIL=1      nvmlInit_v2 returns DRIVER_NOT_LOADED (9)
 *   FAKE_NVML_NO_GPM=1         nvmlGpmQueryDeviceSupport says "not supported"
 *   FAKE_NVML_NOT_SUPPORTED=a,b  these functions (exact symbol names) return
 * NOT_SUPPORTED (3) FAKE_NVML_FAIL_ONCE=a,b    the first call of each of these
 * functions returns UNKNOWN (999), later calls work (a transient driver error)
 *   FAKE_NVML_LOST_AFTER=K     after K ticks of a GPU (a tick begins with a
 * utilization read, nvmlDeviceGetUtilizationRates or nvmlDeviceGetSamples of
 * GPU_UTIL with a buffer, that does not follow another one: the sampler reads
 * utilization once a tick), the next one and every later device call return
 * GPU_IS_LOST (15) FAKE_NVML_LOST_GPU=i       only GPU i gets lost (default:
 * every GPU) FAKE_NVML_REASONS=m0,m1,.. clock event reasons returned by the
 * 1st, 2nd, ... call (hex or decimal); the last one repeats (default 0)
 *   FAKE_NVML_SM_CLOCKS=c0,c1,.. SM clocks (MHz) returned by the 1st, 2nd, ...
 * call of each GPU; the last one repeats (default: FAKE_NVML_SM_CLOCK, 1755)
 *   FAKE_NVML_SAMPLES_DOUBLE=1 nvmlDeviceGetSamples reports its values as
 * DOUBLE instead of UINT
 *   FAKE_NVML_TIMEOUT_TICKS=a,b  a driver that stops answering for a while:
 * every device call returns TIMEOUT (10) after more than a and at most b ticks
 * in all (utilization reads as above, one per tick and GPU)
 *
 * Deterministic values (GPU i):
 *   power 400 W + 1 W per GetPowerUsage call; energy 40 J per
 * GetTotalEnergyConsumption call limits: enforced/default/max 700 W, min 200 W;
 * SM clock 1755 (max 1980); memory 3201 MHz memory: total 143771 MiB, v2 used
 * 20 GiB + i GiB, reserved 512 MiB (v1 used = v2 used + reserved) utilization
 * samples: each GetSamples call adds two samples 100 ms apart; GPU_UTIL
 * alternates 60, 80; MEM_UTIL alternates 30, 40. Rates: 55 / 25. PCIe
 * throughput: TX 1000 KB/s, RX 250000 KB/s. GPM: each sample carries the number
 * of nvmlGpmSampleGet calls so far; for a pair with d calls between them: gract
 * 10d+5, smutil 10d, tensor 8d, smocc 12.5, dram 17.25, fp32 3, fp16 1.5, PCIe
 * TX 100 / RX 2000 MiB/s, NVLink NOT_SUPPORTED (one GPU, no links), other ids
 * INVALID_ARGUMENT. temperature 45 + i C, memory 52 C (field 82), PCIe gen 5
 * x16, replay 0, violation fields 74/76/269/270/271: 1.5 s, 0, 2 ms, 0, 0 (ns);
 *   ECC volatile corrected 3, uncorrected 0; remapped rows 1, 0, 0, 0.
 *   processes: compute pids 4242 (8 GiB) and 4243 (2 GiB) + 100 i; graphics pid
 *   4242 + 100 i again; process utilization: pid 4242 sm 37, pid 4243 a junk
 *   sample with sm 250.
 * fake_nvml_calls("symbol") returns how often a function was called since init.
 *
 * Knobs for gpuwhy check, read at init like the others. Each takes a comma
 * list with one value per GPU (the last value repeats for later GPUs); unset,
 * the values above stay:
 *   FAKE_NVML_PSTATE=p            performance state (default 0)
 *   FAKE_NVML_SM_CLOCK_MHZ=m      current SM and graphics clock (default 1755)
 *   FAKE_NVML_PCIE_GEN=g          current PCIe link generation (default 5)
 *   FAKE_NVML_PCIE_WIDTH=w        current PCIe link width (default 16)
 *   FAKE_NVML_POWER_LIMIT_MW=l    enforced power limit (default 700000)
 *   FAKE_NVML_TEMP_C=t            GPU temperature (default 45 + i)
 *   FAKE_NVML_MIG=0|1             current MIG mode (default 0)
 *   FAKE_NVML_PERSISTENCE=0|1     persistence mode (default 1)
 *   FAKE_NVML_COMPUTE_MODE=c      compute mode, 0..3 (default 0)
 *   FAKE_NVML_ECC_UNCORRECTED=n   volatile uncorrected ECC errors (default 0)
 *   FAKE_NVML_REMAP_PENDING=0|1   remapped rows: a remap is pending (default 0)
 *   FAKE_NVML_REMAP_FAILURE=0|1   remapped rows: a remap failed (default 0)
 *   FAKE_NVML_VIOL_HW_THERMAL_NS=n     field 270 (default 0)
 *   FAKE_NVML_VIOL_HW_POWER_BRAKE_NS=n field 271 (default 0)
 *   FAKE_NVML_VIOL_SW_THERMAL_NS=n     field 269 (default 2 ms)
 * and two for the whole system:
 *   FAKE_NVML_CUDA_VERSION=v      nvmlSystemGetCudaDriverVersion_v2 (default 13000)
 *   FAKE_NVML_PROC_PIDS=a,b       compute processes instead of the default list,
 *                                 1 GiB each, no graphics processes; "none" lists none
 */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define FAKE_API __attribute__((visibility("default")))

/* The same ABI declarations as the real source: the fake cannot drift. */
#include "../../lib/sources/nvml_abi.h"

enum {
  OK = 0,
  E_UNINITIALIZED = 1,
  E_INVALID_ARGUMENT = 2,
  E_NOT_SUPPORTED = 3,
  E_NOT_FOUND = 6,
  E_INSUFFICIENT_SIZE = 7,
  E_DRIVER_NOT_LOADED = 9,
  E_FUNCTION_NOT_FOUND = 13,
  E_TIMEOUT = 10,
  E_GPU_IS_LOST = 15,
  E_ARGUMENT_VERSION_MISMATCH = 25,
  E_UNKNOWN = 999,
};

#define MAX_GPUS 8
#define MAX_REASONS 32
#define MAX_PROC_PIDS 16

/* Per-GPU knobs (see the header comment). */
enum {
  K_PSTATE,
  K_SM_CLOCK,
  K_PCIE_GEN,
  K_PCIE_WIDTH,
  K_POWER_LIMIT,
  K_TEMP,
  K_MIG,
  K_PERSISTENCE,
  K_COMPUTE_MODE,
  K_ECC_UNC,
  K_REMAP_PENDING,
  K_REMAP_FAILURE,
  K_VIOL_HW_THERMAL,
  K_VIOL_HW_POWER_BRAKE,
  K_VIOL_SW_THERMAL,
  NKNOBS
};
static const char *const knob_env[NKNOBS] = {
    "FAKE_NVML_PSTATE",
    "FAKE_NVML_SM_CLOCK_MHZ",
    "FAKE_NVML_PCIE_GEN",
    "FAKE_NVML_PCIE_WIDTH",
    "FAKE_NVML_POWER_LIMIT_MW",
    "FAKE_NVML_TEMP_C",
    "FAKE_NVML_MIG",
    "FAKE_NVML_PERSISTENCE",
    "FAKE_NVML_COMPUTE_MODE",
    "FAKE_NVML_ECC_UNCORRECTED",
    "FAKE_NVML_REMAP_PENDING",
    "FAKE_NVML_REMAP_FAILURE",
    "FAKE_NVML_VIOL_HW_THERMAL_NS",
    "FAKE_NVML_VIOL_HW_POWER_BRAKE_NS",
    "FAKE_NVML_VIOL_SW_THERMAL_NS",
};
#define GIB (1024ULL * 1024 * 1024)
#define MIB (1024ULL * 1024)

struct fake_dev {
  unsigned index;
  unsigned long long power_calls, energy_calls, reasons_calls;
  unsigned long long ticks; /* utilization reads: one per sampler tick */
  unsigned long long sm_clock_calls;
  int point_read_failed;                /* the last call was a failed nvmlDeviceGetUtilizationRates */
  unsigned long long util_generated[3]; /* per sample type 1 and 2 */
  unsigned long long gpm_samples_taken;
};

struct fake_gpm_sample {
  unsigned magic;
  int taken;
  unsigned long long seq; /* nvmlGpmSampleGet calls on the device when taken */
  unsigned dev;
};
#define GPM_MAGIC 0x6770u

static struct {
  int refcount;
  unsigned ngpus;
  int no_gpm, init_fail, samples_double;
  long lost_after;
  long timeout_from, timeout_to; /* FAKE_NVML_TIMEOUT_TICKS */
  unsigned long ticks_total;     /* utilization reads of all GPUs */
  long lost_gpu;
  char not_supported[1024];
  char fail_once[1024];
  unsigned long long reasons[MAX_REASONS];
  unsigned nreasons;
  unsigned long long sm_clocks[MAX_REASONS]; /* FAKE_NVML_SM_CLOCKS */
  unsigned nsm_clocks;
  int knob_set[NKNOBS];
  long long knob[NKNOBS][MAX_GPUS];
  long cuda_version;
  int proc_pids_set;
  unsigned nproc_pids;
  unsigned proc_pids[MAX_PROC_PIDS];
  struct fake_dev devs[MAX_GPUS];
  struct {
    const char *name;
    unsigned long count;
  } calls[96];
  unsigned ncalls;
} fake;

static long env_long(const char *name, long fallback) {
  const char *s = getenv(name);
  if (!s || !*s)
    return fallback;
  char *end = NULL;
  long v = strtol(s, &end, 0);
  return (end && *end == '\0') ? v : fallback;
}

/* A comma-separated list of numbers in base (0: hex or decimal) from s, up to
 * the first that is not one; returns how many were read, at most max. */
static unsigned parse_number_list(const char *s, int base, unsigned long long *out, unsigned max) {
  unsigned n = 0;
  while (s && *s && n < max) {
    char *end = NULL;
    unsigned long long v = strtoull(s, &end, base);
    if (end == s)
      break;
    out[n++] = v;
    s = (*end == ',') ? end + 1 : end;
  }
  return n;
}

/* The list in the environment variable name, at most MAX_REASONS numbers. */
static unsigned read_number_list(const char *name, unsigned long long *out) {
  return parse_number_list(getenv(name), 0, out, MAX_REASONS);
}

/* A comma list of names, stored as ",a,b," so a lookup is one strstr of
 * ",name,". */
static void read_name_list(const char *var, char out[1024]) {
  const char *list = getenv(var);
  size_t len = list ? strlen(list) : 0;
  if (len == 0 || len + 3 > 1024)
    return;
  out[0] = ',';
  memcpy(out + 1, list, len);
  out[len + 1] = ',';
  out[len + 2] = '\0';
}

/* "a,b,c": GPU 0 gets a, 1 gets b, 2 and later get c. */
static void read_gpu_knob(int k) {
  unsigned long long v[MAX_GPUS];
  unsigned n = parse_number_list(getenv(knob_env[k]), 0, v, MAX_GPUS);
  if (n == 0)
    return;
  fake.knob_set[k] = 1;
  for (unsigned i = 0; i < MAX_GPUS; i++)
    fake.knob[k][i] = (long long)v[i < n ? i : n - 1];
}

static void read_knobs(void) {
  memset(&fake, 0, sizeof fake);
  long n = env_long("FAKE_NVML_GPUS", 1);
  fake.ngpus = (n < 0) ? 0 : (n > MAX_GPUS ? MAX_GPUS : (unsigned)n);
  fake.no_gpm = env_long("FAKE_NVML_NO_GPM", 0) != 0;
  fake.init_fail = env_long("FAKE_NVML_INIT_FAIL", 0) != 0;
  fake.samples_double = env_long("FAKE_NVML_SAMPLES_DOUBLE", 0) != 0;
  fake.lost_after = env_long("FAKE_NVML_LOST_AFTER", -1);
  fake.timeout_from = fake.timeout_to = -1;
  const char *tt = getenv("FAKE_NVML_TIMEOUT_TICKS");
  if (tt) {
    char *end = NULL;
    fake.timeout_from = strtol(tt, &end, 10);
    fake.timeout_to = (end && *end == ',') ? strtol(end + 1, NULL, 10) : -1;
  }
  fake.lost_gpu = env_long("FAKE_NVML_LOST_GPU", -1);
  read_name_list("FAKE_NVML_NOT_SUPPORTED", fake.not_supported);
  read_name_list("FAKE_NVML_FAIL_ONCE", fake.fail_once);
  fake.nreasons = read_number_list("FAKE_NVML_REASONS", fake.reasons);
  fake.nsm_clocks = read_number_list("FAKE_NVML_SM_CLOCKS", fake.sm_clocks);
  for (unsigned i = 0; i < MAX_GPUS; i++)
    fake.devs[i].index = i;
  for (int k = 0; k < NKNOBS; k++)
    read_gpu_knob(k);
  fake.cuda_version = env_long("FAKE_NVML_CUDA_VERSION", 13000);
  const char *pids = getenv("FAKE_NVML_PROC_PIDS");
  if (pids) {
    fake.proc_pids_set = 1;
    unsigned long long v[MAX_PROC_PIDS];
    fake.nproc_pids = strcmp(pids, "none") == 0 ? 0 : parse_number_list(pids, 10, v, MAX_PROC_PIDS);
    for (unsigned i = 0; i < fake.nproc_pids; i++)
      fake.proc_pids[i] = (unsigned)v[i];
  }
}

/* The value of a per-GPU knob for device d, or fallback when unset. */
static long long knob(const struct fake_dev *d, int k, long long fallback) {
  return fake.knob_set[k] ? fake.knob[k][d->index] : fallback;
}

static void count_call(const char *fn) {
  for (unsigned i = 0; i < fake.ncalls; i++) {
    if (strcmp(fake.calls[i].name, fn) == 0) {
      fake.calls[i].count++;
      return;
    }
  }
  if (fake.ncalls < sizeof fake.calls / sizeof fake.calls[0]) {
    fake.calls[fake.ncalls].name = fn;
    fake.calls[fake.ncalls++].count = 1;
  }
}

static int in_name_list(const char *list, const char *fn) {
  char key[128];
  size_t len = strlen(fn);
  if (!list[0] || len + 3 > sizeof key)
    return 0;
  key[0] = ',';
  memcpy(key + 1, fn, len);
  key[len + 1] = ',';
  key[len + 2] = '\0';
  return strstr(list, key) != NULL;
}

FAKE_API unsigned long fake_nvml_calls(const char *fn);

static int dev_is_lost(const struct fake_dev *d) {
  if (fake.lost_after < 0 || (fake.lost_gpu >= 0 && (unsigned long)fake.lost_gpu != d->index))
    return 0;
  return d->ticks > (unsigned long long)fake.lost_after;
}

/* The scripted loss, timeouts, NOT_SUPPORTED list and transient errors. */
static nvmlReturn_t enter_checks(const char *fn, struct fake_dev *d) {
  if (dev_is_lost(d))
    return E_GPU_IS_LOST;
  unsigned long ticks = fake.ticks_total;
  if (fake.timeout_to >= 0 && ticks > (unsigned long)fake.timeout_from && ticks <= (unsigned long)fake.timeout_to)
    return E_TIMEOUT;
  if (in_name_list(fake.not_supported, fn))
    return E_NOT_SUPPORTED;
  if (fake_nvml_calls(fn) == 1 && in_name_list(fake.fail_once, fn))
    return E_UNKNOWN;
  return OK;
}

enum { TICK_NO, TICK_POINT_READ, TICK_BUFFERED };

/* Common entry of every device function: count, check the handle, apply
 * the scripted loss and NOT_SUPPORTED list. starts_tick: TICK_* when this
 * call is the utilization read that begins a sampler tick (the scripted loss
 * and timeouts are counted in ticks). */
static nvmlReturn_t enter(const char *fn, nvmlDevice_t dev, int starts_tick, struct fake_dev **out) {
  count_call(fn);
  if (fake.refcount == 0)
    return E_UNINITIALIZED;
  struct fake_dev *d = (struct fake_dev *)(void *)dev;
  if (d < fake.devs || d >= fake.devs + fake.ngpus)
    return E_INVALID_ARGUMENT;
  /* The buffered samples right after a failed point read are the same tick
   * (the sampler's fallback). */
  int point_read_failed = d->point_read_failed;
  d->point_read_failed = 0;
  if (starts_tick == TICK_POINT_READ || (starts_tick == TICK_BUFFERED && !point_read_failed)) {
    d->ticks++;
    fake.ticks_total++;
  }
  nvmlReturn_t rc = enter_checks(fn, d);
  if (rc != OK && starts_tick == TICK_POINT_READ)
    d->point_read_failed = 1;
  if (rc == OK)
    *out = d;
  return rc;
}

#define ENTER_TICK(dev, starts_tick)                                                                                   \
  struct fake_dev *d = NULL;                                                                                           \
  nvmlReturn_t entry_status = enter(__func__, (dev), (starts_tick), &d);                                               \
  if (entry_status != OK)                                                                                              \
  return entry_status
#define ENTER(dev) ENTER_TICK(dev, TICK_NO)

/* A device query with one output, value (an expression that may read d, the
 * device): the shape of most of the ABI's getters. */
#define FAKE_DEVICE_GETTER(name, type, value)                                                                          \
  FAKE_API nvmlReturn_t name(nvmlDevice_t dev, type *out) {                                                            \
    ENTER(dev);                                                                                                        \
    *out = (type)(value);                                                                                              \
    return OK;                                                                                                         \
  }

static nvmlReturn_t enter_system(const char *fn) {
  count_call(fn);
  if (fake.refcount == 0)
    return E_UNINITIALIZED;
  return in_name_list(fake.not_supported, fn) ? E_NOT_SUPPORTED : OK;
}

static void copy_str(char *dst, unsigned cap, const char *src) {
  if (cap == 0)
    return;
  size_t n = strlen(src);
  if (n >= cap)
    n = cap - 1;
  memcpy(dst, src, n);
  dst[n] = '\0';
}

static void put_hex(char *dst, unsigned value, int digits) {
  static const char hex[] = "0123456789ABCDEF";
  for (int i = digits - 1; i >= 0; i--) {
    dst[i] = hex[value & 0xF];
    value >>= 4;
  }
}

/* ---- system ---- */

FAKE_API unsigned long fake_nvml_calls(const char *fn) {
  for (unsigned i = 0; i < fake.ncalls; i++)
    if (strcmp(fake.calls[i].name, fn) == 0)
      return fake.calls[i].count;
  return 0;
}

FAKE_API nvmlReturn_t nvmlInit_v2(void) {
  if (fake.refcount == 0) {
    read_knobs();
    if (fake.init_fail)
      return E_DRIVER_NOT_LOADED;
  }
  count_call(__func__);
  fake.refcount++;
  return OK;
}

FAKE_API nvmlReturn_t nvmlShutdown(void) {
  if (fake.refcount == 0)
    return E_UNINITIALIZED;
  fake.refcount--;
  return OK;
}

FAKE_API const char *nvmlErrorString(nvmlReturn_t r) {
  switch (r) {
  case OK:
    return "Success";
  case E_UNINITIALIZED:
    return "Uninitialized";
  case E_INVALID_ARGUMENT:
    return "Invalid Argument";
  case E_NOT_SUPPORTED:
    return "Not Supported";
  case E_DRIVER_NOT_LOADED:
    return "Driver Not Loaded";
  case E_GPU_IS_LOST:
    return "GPU is lost";
  default:
    return "Unknown Error";
  }
}

FAKE_API nvmlReturn_t nvmlDeviceGetCount_v2(unsigned *count) {
  nvmlReturn_t r = enter_system(__func__);
  if (r == OK)
    *count = fake.ngpus;
  return r;
}

FAKE_API nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned index, nvmlDevice_t *dev) {
  nvmlReturn_t r = enter_system(__func__);
  if (r != OK)
    return r;
  if (index >= fake.ngpus)
    return E_INVALID_ARGUMENT;
  *dev = (nvmlDevice_t)(void *)&fake.devs[index];
  return OK;
}

FAKE_API nvmlReturn_t nvmlSystemGetDriverVersion(char *buf, unsigned len) {
  nvmlReturn_t r = enter_system(__func__);
  if (r == OK)
    copy_str(buf, len, "580.159.04");
  return r;
}

FAKE_API nvmlReturn_t nvmlSystemGetNVMLVersion(char *buf, unsigned len) {
  nvmlReturn_t r = enter_system(__func__);
  if (r == OK)
    copy_str(buf, len, "13.580.159.04");
  return r;
}

FAKE_API nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) {
  nvmlReturn_t r = enter_system(__func__);
  if (r == OK)
    *v = (int)fake.cuda_version;
  return r;
}

/* ---- static facts ---- */

FAKE_API nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t dev, char *buf, unsigned len) {
  ENTER(dev);
  copy_str(buf, len, "NVIDIA H200 (fake)");
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t dev, char *buf, unsigned len) {
  ENTER(dev);
  char uuid[] = "GPU-fa4e0000-0000-4000-8000-00000000000X";
  uuid[sizeof uuid - 2] = (char)('0' + d->index);
  copy_str(buf, len, uuid);
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t dev, nvmlPciInfo_t *pci) {
  ENTER(dev);
  memset(pci, 0, sizeof *pci);
  pci->bus = 0x18 + d->index;
  pci->pciDeviceId = 0x233510de;
  char id[] = "00000000:XX:00.0";
  put_hex(id + 9, pci->bus, 2);
  copy_str(pci->busId, sizeof pci->busId, id);
  copy_str(pci->busIdLegacy, sizeof pci->busIdLegacy, id + 4);
  return OK;
}

static const unsigned long long mem_total = 143771ULL * MIB;
static const unsigned long long mem_reserved = 512ULL * MIB;

FAKE_API nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t dev, nvmlMemory_v2_t *m) {
  ENTER(dev);
  /* The real driver (580) answers FUNCTION_NOT_FOUND to a bare "2": the
   * version must be sizeof | 2 << 24. */
  if (m->version != ((unsigned)sizeof(nvmlMemory_v2_t) | (2u << 24)))
    return E_FUNCTION_NOT_FOUND;
  m->total = mem_total;
  m->reserved = mem_reserved;
  m->used = 20 * GIB + d->index * GIB;
  m->free = m->total - m->reserved - m->used;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t dev, nvmlMemory_t *m) {
  ENTER(dev);
  m->total = mem_total;
  m->used = 20 * GIB + d->index * GIB + mem_reserved;
  m->free = m->total - m->used;
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetPowerManagementDefaultLimit, unsigned, 700000)

FAKE_API nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t dev, unsigned *min_mw,
                                                                   unsigned *max_mw) {
  ENTER(dev);
  *min_mw = 200000;
  *max_mw = 700000;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t dev, int type, unsigned *mhz) {
  ENTER(dev);
  if (type == 1 || type == 0)
    *mhz = 1980;
  else if (type == 2)
    *mhz = 3201;
  else
    return E_INVALID_ARGUMENT;
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetGpuMaxPcieLinkGeneration, unsigned, 5)

/* the slot's maximum, so a test can tell which call was used */
FAKE_DEVICE_GETTER(nvmlDeviceGetMaxPcieLinkGeneration, unsigned, 4)

FAKE_DEVICE_GETTER(nvmlDeviceGetMaxPcieLinkWidth, unsigned, 16)

FAKE_API nvmlReturn_t nvmlDeviceGetTemperatureThreshold(nvmlDevice_t dev, int which, unsigned *c) {
  ENTER(dev);
  static const unsigned thresholds[] = {95, 89, 95, 87}; /* shutdown, slowdown, mem max, gpu max */
  if (which < 0 || which > 3)
    return E_NOT_SUPPORTED;
  *c = thresholds[which];
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t dev, unsigned *cur, unsigned *pending) {
  ENTER(dev);
  *cur = (unsigned)knob(d, K_MIG, 0);
  *pending = *cur;
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetPersistenceMode, int, knob(d, K_PERSISTENCE, 1))

FAKE_DEVICE_GETTER(nvmlDeviceGetComputeMode, int, knob(d, K_COMPUTE_MODE, 0))

FAKE_API nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t dev, int *cur, int *pending) {
  ENTER(dev);
  *cur = 1;
  *pending = 1;
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetSupportedClocksEventReasons, unsigned long long, 0x1ff)

FAKE_DEVICE_GETTER(nvmlDeviceGetSupportedClocksThrottleReasons, unsigned long long, 0x1ff)

/* ---- fast metrics ---- */

#define SAMPLE_BASE_US 1795970800000000ULL
#define SAMPLE_STEP_US 100000ULL

FAKE_API nvmlReturn_t nvmlDeviceGetSamples(nvmlDevice_t dev, int type, unsigned long long last_seen_us, int *value_type,
                                           unsigned *count, nvmlSample_t *samples) {
  ENTER_TICK(dev, type == 1 && samples != NULL ? TICK_BUFFERED : TICK_NO);
  if (type != 1 && type != 2)
    return E_NOT_SUPPORTED;
  if (!count || !value_type)
    return E_INVALID_ARGUMENT;
  if (!samples) {
    *count = (unsigned)d->util_generated[type] + 2;
    return OK;
  }
  d->util_generated[type] += 2; /* the driver buffered two more samples */
  unsigned n = 0;
  for (unsigned long long i = 0; i < d->util_generated[type]; i++) {
    unsigned long long ts = SAMPLE_BASE_US + i * SAMPLE_STEP_US;
    if (ts <= last_seen_us)
      continue;
    if (n >= *count)
      return E_INSUFFICIENT_SIZE;
    unsigned v = type == 1 ? (i % 2 ? 80 : 60) : (i % 2 ? 40 : 30);
    samples[n].timeStamp = ts;
    if (fake.samples_double)
      samples[n].sampleValue.dVal = v;
    else {
      samples[n].sampleValue.ullVal = 0xdeadbeef00000000ULL; /* junk in the upper half, as a union may hold
                                                              */
      samples[n].sampleValue.uiVal = v;
    }
    n++;
  }
  if (n == 0)
    return E_NOT_FOUND;
  *value_type = fake.samples_double ? 0 : 1;
  *count = n;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t dev, nvmlUtilization_t *u) {
  ENTER_TICK(dev, TICK_POINT_READ);
  u->gpu = 55;
  u->memory = 25;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t dev, unsigned *mw) {
  ENTER(dev);
  d->power_calls++;
  if (dev_is_lost(d))
    return E_GPU_IS_LOST;
  *mw = 400000u + 1000u * (unsigned)d->power_calls;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t dev, unsigned long long *mj) {
  ENTER(dev);
  d->energy_calls++;
  *mj = 1000000000ULL + 40000ULL * d->energy_calls;
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetPerformanceState, int, knob(d, K_PSTATE, 0))

FAKE_API nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t dev, int type, unsigned *mhz) {
  ENTER(dev);
  if (type == 0 || type == 1)
    *mhz =
        fake.nsm_clocks
            ? (unsigned)fake.sm_clocks[d->sm_clock_calls < fake.nsm_clocks ? d->sm_clock_calls++ : fake.nsm_clocks - 1]
            : (unsigned)knob(d, K_SM_CLOCK, 1755);
  else if (type == 2)
    *mhz = 3201;
  else
    return E_INVALID_ARGUMENT;
  return OK;
}

static unsigned long long next_reasons(struct fake_dev *d) {
  unsigned long long i = d->reasons_calls++;
  if (fake.nreasons == 0)
    return 0;
  return fake.reasons[i < fake.nreasons ? i : fake.nreasons - 1];
}

FAKE_DEVICE_GETTER(nvmlDeviceGetCurrentClocksEventReasons, unsigned long long, next_reasons(d))

FAKE_DEVICE_GETTER(nvmlDeviceGetCurrentClocksThrottleReasons, unsigned long long, next_reasons(d))

FAKE_API nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t dev, int counter, unsigned *kbps) {
  ENTER(dev);
  if (counter == 0)
    *kbps = 1000;
  else if (counter == 1)
    *kbps = 250000;
  else
    return E_INVALID_ARGUMENT;
  return OK;
}

/* ---- GPM ---- */

FAKE_API nvmlReturn_t nvmlGpmQueryDeviceSupport(nvmlDevice_t dev, nvmlGpmSupport_t *s) {
  ENTER(dev);
  if (s->version != 1)
    return E_ARGUMENT_VERSION_MISMATCH;
  s->isSupportedDevice = fake.no_gpm ? 0 : 1;
  return OK;
}

FAKE_API nvmlReturn_t nvmlGpmSampleAlloc(nvmlGpmSample_t *out) {
  nvmlReturn_t r = enter_system(__func__);
  if (r != OK)
    return r;
  struct fake_gpm_sample *s = calloc(1, sizeof *s);
  if (!s)
    return 20; /* NVML_ERROR_MEMORY */
  s->magic = GPM_MAGIC;
  *out = (nvmlGpmSample_t)(void *)s;
  return OK;
}

FAKE_API nvmlReturn_t nvmlGpmSampleFree(nvmlGpmSample_t sample) {
  count_call(__func__);
  struct fake_gpm_sample *s = (struct fake_gpm_sample *)(void *)sample;
  if (!s || s->magic != GPM_MAGIC)
    return E_INVALID_ARGUMENT;
  s->magic = 0;
  free(s);
  return OK;
}

FAKE_API nvmlReturn_t nvmlGpmSampleGet(nvmlDevice_t dev, nvmlGpmSample_t sample) {
  ENTER(dev);
  struct fake_gpm_sample *s = (struct fake_gpm_sample *)(void *)sample;
  if (fake.no_gpm)
    return E_NOT_SUPPORTED;
  if (!s || s->magic != GPM_MAGIC)
    return E_INVALID_ARGUMENT;
  s->seq = ++d->gpm_samples_taken;
  s->dev = d->index;
  s->taken = 1;
  return OK;
}

/* The GPM metrics the fake answers, for a pair of samples d calls of
 * nvmlGpmSampleGet apart: per_call * d + base; NVLink is not supported (one
 * GPU, no links). Any other id is an invalid argument. */
struct fake_gpm_metric {
  unsigned id;
  double per_call, base;
  int supported;
};
static const struct fake_gpm_metric gpm_metrics[] = {
    {1, 10, 5, 1},     /* graphics activity */
    {2, 10, 0, 1},     /* SM utilization */
    {3, 0, 12.5, 1},   /* SM occupancy */
    {5, 8, 0, 1},      /* tensor activity */
    {10, 0, 17.25, 1}, /* DRAM bandwidth */
    {12, 0, 3, 1},     /* FP32 */
    {13, 0, 1.5, 1},   /* FP16 */
    {20, 0, 100, 1},   /* PCIe TX, MiB/s */
    {21, 0, 2000, 1},  /* PCIe RX, MiB/s */
    {60, 0, 0, 0},     /* NVLink RX */
    {61, 0, 0, 0},     /* NVLink TX */
};

static const struct fake_gpm_metric *gpm_metric(unsigned id) {
  for (size_t i = 0; i < sizeof gpm_metrics / sizeof gpm_metrics[0]; i++)
    if (gpm_metrics[i].id == id)
      return &gpm_metrics[i];
  return NULL;
}

FAKE_API nvmlReturn_t nvmlGpmMetricsGet(nvmlGpmMetricsGet_t *req) {
  count_call(__func__);
  if (fake.refcount == 0)
    return E_UNINITIALIZED;
  if (!req || req->version != 1)
    return E_ARGUMENT_VERSION_MISMATCH;
  const struct fake_gpm_sample *s1 = (const void *)req->sample1, *s2 = (const void *)req->sample2;
  if (!s1 || !s2 || s1->magic != GPM_MAGIC || s2->magic != GPM_MAGIC || !s1->taken || !s2->taken ||
      s1->dev != s2->dev || req->numMetrics == 0 || req->numMetrics > 210)
    return E_INVALID_ARGUMENT;
  if (dev_is_lost(&fake.devs[s1->dev]))
    return E_GPU_IS_LOST;
  if (s2->seq <= s1->seq) /* sample1 must be the older one */
    return E_INVALID_ARGUMENT;
  double dcalls = (double)(s2->seq - s1->seq);
  for (unsigned i = 0; i < req->numMetrics; i++) {
    nvmlGpmMetric_t *m = &req->metrics[i];
    const struct fake_gpm_metric *g = gpm_metric(m->metricId);
    m->nvmlReturn = !g ? E_INVALID_ARGUMENT : g->supported ? OK : E_NOT_SUPPORTED;
    if (g)
      m->value = g->supported ? g->per_call * dcalls + g->base : NAN;
  }
  return OK;
}

/* ---- slow metrics ---- */

FAKE_DEVICE_GETTER(nvmlDeviceGetEnforcedPowerLimit, unsigned, knob(d, K_POWER_LIMIT, 700000))

FAKE_API nvmlReturn_t nvmlDeviceGetTemperatureV(nvmlDevice_t dev, nvmlTemperature_v1_t *t) {
  ENTER(dev);
  if (t->version != ((unsigned)sizeof(nvmlTemperature_v1_t) | (1u << 24)))
    return E_ARGUMENT_VERSION_MISMATCH;
  if (t->sensorType != 0)
    return E_INVALID_ARGUMENT;
  t->temperature = (int)knob(d, K_TEMP, 45 + (int)d->index);
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t dev, int sensor, unsigned *c) {
  ENTER(dev);
  if (sensor != 0)
    return E_INVALID_ARGUMENT;
  *c = (unsigned)knob(d, K_TEMP, 45 + (int)d->index);
  return OK;
}

/* The field values the fake answers: the value, or the knob that overrides
 * it (-1: none); value_type 1 UINT, 3 ULL. Other fields are not supported. */
struct fake_field {
  unsigned id;
  int value_type, knob;
  long long value;
};
static const struct fake_field fields[] = {
    {82, 1, -1, 52},                        /* memory temperature, C */
    {74, 3, -1, 1500000000LL},              /* power cap violation, ns */
    {76, 3, -1, 0},                         /* sync boost violation, ns */
    {270, 3, K_VIOL_HW_THERMAL, 0},         /* HW thermal slowdown, ns */
    {271, 3, K_VIOL_HW_POWER_BRAKE, 0},     /* HW power brake, ns */
    {269, 3, K_VIOL_SW_THERMAL, 2000000LL}, /* SW thermal slowdown, ns */
};

static const struct fake_field *fake_field(unsigned id) {
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (fields[i].id == id)
      return &fields[i];
  return NULL;
}

FAKE_API nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t dev, int count, nvmlFieldValue_t *values) {
  ENTER(dev);
  if (count <= 0 || !values)
    return E_INVALID_ARGUMENT;
  for (int i = 0; i < count; i++) {
    nvmlFieldValue_t *f = &values[i];
    f->timestamp = (long long)SAMPLE_BASE_US;
    f->latencyUsec = 0;
    f->valueType = 3; /* ULL */
    const struct fake_field *field = fake_field(f->fieldId);
    f->nvmlReturn = field ? OK : E_NOT_SUPPORTED;
    if (!field)
      continue;
    long long v = field->knob >= 0 ? knob(d, field->knob, field->value) : field->value;
    f->valueType = field->value_type;
    f->value.ullVal = field->value_type == 1 ? 0 : (unsigned long long)v;
    if (field->value_type == 1)
      f->value.uiVal = (unsigned)v;
  }
  return OK;
}

FAKE_DEVICE_GETTER(nvmlDeviceGetCurrPcieLinkGeneration, unsigned, knob(d, K_PCIE_GEN, 5))

FAKE_DEVICE_GETTER(nvmlDeviceGetCurrPcieLinkWidth, unsigned, knob(d, K_PCIE_WIDTH, 16))

FAKE_DEVICE_GETTER(nvmlDeviceGetPcieReplayCounter, unsigned, 0)

FAKE_API nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t dev, int error_type, int counter_type,
                                                  unsigned long long *n) {
  ENTER(dev);
  if (counter_type != 0 && counter_type != 1)
    return E_INVALID_ARGUMENT;
  if (error_type == 0)
    *n = 3;
  else if (error_type == 1)
    *n = (unsigned long long)knob(d, K_ECC_UNC, 0);
  else
    return E_INVALID_ARGUMENT;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t dev, unsigned *cor, unsigned *unc, unsigned *pending,
                                                unsigned *failed) {
  ENTER(dev);
  *cor = 1;
  *unc = 0;
  *pending = (unsigned)knob(d, K_REMAP_PENDING, 0);
  *failed = (unsigned)knob(d, K_REMAP_FAILURE, 0);
  return OK;
}

/* ---- processes ---- */

static nvmlReturn_t list_processes(const struct fake_dev *d, const nvmlProcessInfo_t *all, unsigned n, unsigned *count,
                                   nvmlProcessInfo_t *out) {
  if (!count)
    return E_INVALID_ARGUMENT;
  if (*count < n) {
    *count = n;
    return E_INSUFFICIENT_SIZE;
  }
  for (unsigned i = 0; i < n; i++) {
    out[i] = all[i];
    out[i].pid += 100 * d->index;
  }
  *count = n;
  return OK;
}

FAKE_API nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t dev, unsigned *count,
                                                              nvmlProcessInfo_t *out) {
  ENTER(dev);
  static const nvmlProcessInfo_t procs[] = {{4242, 8 * GIB, 0xFFFFFFFFu, 0xFFFFFFFFu},
                                            {4243, 2 * GIB, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  if (fake.proc_pids_set) {
    nvmlProcessInfo_t custom[MAX_PROC_PIDS];
    for (unsigned i = 0; i < fake.nproc_pids; i++)
      custom[i] = (nvmlProcessInfo_t){fake.proc_pids[i], GIB, 0xFFFFFFFFu, 0xFFFFFFFFu};
    return list_processes(d, custom, fake.nproc_pids, count, out);
  }
  return list_processes(d, procs, 2, count, out);
}

FAKE_API nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t dev, unsigned *count,
                                                               nvmlProcessInfo_t *out) {
  ENTER(dev);
  static const nvmlProcessInfo_t procs[] = {{4242, 8 * GIB, 0xFFFFFFFFu, 0xFFFFFFFFu}};
  return list_processes(d, procs, fake.proc_pids_set ? 0 : 1, count, out);
}

FAKE_API nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t dev, nvmlProcessUtilizationSample_t *buf,
                                                      unsigned *count, unsigned long long last_seen_us) {
  ENTER(dev);
  if (!count)
    return E_INVALID_ARGUMENT;
  if (!buf) {
    *count = 72; /* what the real driver (580) answers to the sizing call,
                    with 0 or 1 processes alike */
    return E_INSUFFICIENT_SIZE;
  }
  if (*count < 2)
    return E_INSUFFICIENT_SIZE;
  unsigned long long ts = SAMPLE_BASE_US + 500000;
  if (ts <= last_seen_us)
    return E_NOT_FOUND;
  buf[0] = (nvmlProcessUtilizationSample_t){4242 + 100 * d->index, ts, 37, 12, 0, 0};
  buf[1] = (nvmlProcessUtilizationSample_t){4243 + 100 * d->index, ts, 250, 0, 0, 0};
  *count = 2;
  return OK;
}
