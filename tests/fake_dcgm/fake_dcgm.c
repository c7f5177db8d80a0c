/* A fake libdcgm for tests: the handful of DCGM client calls gpuwhy makes
 * (lib/sources/dcgm.c), with the ABI of lib/sources/dcgm_abi.h, serving
 * profiling values from a script. Loaded through the real dlopen path
 * (GPUWHY_DCGM_LIB).
 *
 * Knobs, environment variables read by dcgmInit:
 *   FAKE_DCGM_GPUS=N            GPUs the host engine lists (default 1)
 *   FAKE_DCGM_NVML_INDEX=a,b    NVML index of DCGM GPU 0, 1, ... (field 52;
 *                               default the same number)
 *   FAKE_DCGM_CONNECT=refuse    dcgmConnect_v2 answers CONNECTION_NOT_VALID
 *                               (no host engine listening)
 *   FAKE_DCGM_WATCH_STATUS=rc   dcgmWatchFields returns rc (e.g. -36
 *                               PROFILING_NOT_SUPPORTED, -34 IN_USE)
 *   FAKE_DCGM_FIELD_STATUS=f:rc the value of field f carries status rc
 *   FAKE_DCGM_GONE_AFTER=K      after K reads of profiling values, every
 *                               call returns CONNECTION_NOT_VALID
 *   FAKE_DCGM_VALUES=s,o,t,d;s,o,t,d;...  the ratios (SM active, SM
 *                               occupancy, tensor, DRAM) of the 1st, 2nd, ...
 *                               update period after the watch began; the
 *                               last repeats. DCGM GPU i adds 0.01 x i to SM
 *                               active. Default 0.5,0.25,0.125,0.375.
 *   FAKE_DCGM_LOG=FILE          one line per call, appended
 * Before the first period ends the profiling values are blank (status OK,
 * DCGM_FP64_BLANK), as a real host engine's are. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../lib/sources/dcgm_abi.h"

#define FAKE_API __attribute__((visibility("default")))
#define MAX_STEPS 32
#define NPROF 4

static struct {
  int gpus;
  int nvml_index[DCGM_MAX_NUM_DEVICES];
  int refuse;
  int watch_status;
  int field_id, field_status;
  long gone_after, reads;
  double values[MAX_STEPS][NPROF];
  int nsteps;
  long long watch_start_us, update_us;
  int watching;
} fake;

static void log_call(const char *fmt, ...) {
  const char *path = getenv("FAKE_DCGM_LOG");
  if (!path || !*path)
    return;
  FILE *f = fopen(path, "a");
  if (!f)
    return;
  va_list ap;
  va_start(ap, fmt);
  vfprintf(f, fmt, ap);
  va_end(ap);
  fputc('\n', f);
  fclose(f);
}

static long long now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
}

static long env_long(const char *name, long dflt) {
  const char *v = getenv(name);
  return v && *v ? strtol(v, NULL, 10) : dflt;
}

static void read_values(void) {
  static const double dflt[NPROF] = {0.5, 0.25, 0.125, 0.375};
  memcpy(fake.values[0], dflt, sizeof dflt);
  fake.nsteps = 1;
  const char *v = getenv("FAKE_DCGM_VALUES");
  if (!v || !*v)
    return;
  fake.nsteps = 0;
  while (*v && fake.nsteps < MAX_STEPS) {
    double *row = fake.values[fake.nsteps++];
    for (int k = 0; k < NPROF; k++) {
      char *end;
      row[k] = strtod(v, &end);
      v = *end ? end + 1 : end;
      if (*end == ';')
        break;
    }
  }
}

FAKE_API dcgmReturn_t dcgmInit(void) {
  memset(&fake, 0, sizeof fake);
  fake.gpus = (int)env_long("FAKE_DCGM_GPUS", 1);
  if (fake.gpus < 0 || fake.gpus > DCGM_MAX_NUM_DEVICES)
    fake.gpus = 1;
  const char *idx = getenv("FAKE_DCGM_NVML_INDEX");
  for (int i = 0; i < DCGM_MAX_NUM_DEVICES; i++) {
    fake.nvml_index[i] = i;
    if (idx && *idx) {
      char *end;
      fake.nvml_index[i] = (int)strtol(idx, &end, 10);
      idx = *end ? end + 1 : end;
    }
  }
  const char *c = getenv("FAKE_DCGM_CONNECT");
  fake.refuse = c && strcmp(c, "refuse") == 0;
  fake.watch_status = (int)env_long("FAKE_DCGM_WATCH_STATUS", DCGM_ST_OK);
  const char *fs = getenv("FAKE_DCGM_FIELD_STATUS");
  if (fs && *fs && sscanf(fs, "%d:%d", &fake.field_id, &fake.field_status) != 2)
    fake.field_id = 0;
  fake.gone_after = env_long("FAKE_DCGM_GONE_AFTER", -1);
  read_values();
  log_call("dcgmInit");
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmShutdown(void) {
  log_call("dcgmShutdown");
  return DCGM_ST_OK;
}

FAKE_API const char *errorString(dcgmReturn_t rc) {
  switch (rc) {
  case DCGM_ST_CONNECTION_NOT_VALID:
    return "Host engine connection invalid/disconnected";
  case DCGM_ST_PROFILING_NOT_SUPPORTED:
    return "Profiling is not supported for this group of GPUs or GPU";
  case DCGM_ST_NOT_SUPPORTED:
    return "This request is not supported by the DCGM host engine";
  case DCGM_ST_IN_USE:
    return "The requested operation could not be completed because the affected resource is in use";
  default:
    return "fake DCGM status";
  }
}

static int gone(void) {
  return fake.gone_after >= 0 && fake.reads > fake.gone_after;
}

FAKE_API dcgmReturn_t dcgmConnect_v2(const char *address, dcgmConnectV2Params_v2 *p, dcgmHandle_t *h) {
  log_call("dcgmConnect_v2 %s version=0x%x persist=%u timeout_ms=%u unix=%u", address, p->version,
           p->persistAfterDisconnect, p->timeoutMs, p->addressIsUnixSocket);
  if (p->version != dcgmConnectV2Params_version2)
    return -12; /* DCGM_ST_VER_MISMATCH */
  if (fake.refuse)
    return DCGM_ST_CONNECTION_NOT_VALID;
  *h = 1;
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmDisconnect(dcgmHandle_t h) {
  log_call("dcgmDisconnect %lu", (unsigned long)h);
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmGetAllSupportedDevices(dcgmHandle_t h, unsigned *ids, int *count) {
  (void)h;
  for (int i = 0; i < fake.gpus; i++)
    ids[i] = (unsigned)i;
  *count = fake.gpus;
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmFieldGroupCreate(dcgmHandle_t h, int n, const unsigned short *fields, const char *name,
                                           dcgmFieldGrp_t *out) {
  (void)h;
  char list[128] = "";
  for (int i = 0; i < n; i++)
    snprintf(list + strlen(list), sizeof list - strlen(list), "%s%u", i ? "," : "", fields[i]);
  log_call("dcgmFieldGroupCreate %s %s", list, name);
  *out = 7;
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmFieldGroupDestroy(dcgmHandle_t h, dcgmFieldGrp_t fg) {
  (void)h;
  log_call("dcgmFieldGroupDestroy %lu", (unsigned long)fg);
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmWatchFields(dcgmHandle_t h, dcgmGpuGrp_t grp, dcgmFieldGrp_t fg, long long update_us,
                                      double keep_s, int keep_samples) {
  (void)h;
  log_call("dcgmWatchFields group=0x%lx fields=%lu update_us=%lld keep_s=%g keep_samples=%d", (unsigned long)grp,
           (unsigned long)fg, update_us, keep_s, keep_samples);
  if (fake.watch_status != DCGM_ST_OK)
    return fake.watch_status;
  fake.watching = 1;
  fake.update_us = update_us > 0 ? update_us : 1000000;
  fake.watch_start_us = now_us();
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmUnwatchFields(dcgmHandle_t h, dcgmGpuGrp_t grp, dcgmFieldGrp_t fg) {
  (void)h;
  log_call("dcgmUnwatchFields group=0x%lx fields=%lu", (unsigned long)grp, (unsigned long)fg);
  fake.watching = 0;
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmUpdateAllFields(dcgmHandle_t h, int wait) {
  (void)h;
  log_call("dcgmUpdateAllFields %d", wait);
  return DCGM_ST_OK;
}

FAKE_API dcgmReturn_t dcgmGetLatestValuesForFields(dcgmHandle_t h, int gpu, unsigned short *fields, unsigned count,
                                                   dcgmFieldValue_v1 *values) {
  (void)h;
  if (gone())
    return DCGM_ST_CONNECTION_NOT_VALID;
  if (gpu < 0 || gpu >= fake.gpus)
    return DCGM_ST_BADPARAM;
  int profiling = 0;
  long long now = now_us();
  /* the newest finished update period */
  long long period = fake.watching ? (now - fake.watch_start_us) / fake.update_us : 0;
  for (unsigned i = 0; i < count; i++) {
    dcgmFieldValue_v1 *v = &values[i];
    if (v->version != dcgmFieldValue_version1)
      return -12; /* DCGM_ST_VER_MISMATCH */
    v->fieldId = fields[i];
    v->status = DCGM_ST_OK;
    v->ts = now;
    if (fields[i] == DCGM_FI_DEV_NVML_INDEX) {
      v->fieldType = DCGM_FT_INT64;
      v->value.i64 = fake.nvml_index[gpu];
      continue;
    }
    profiling = 1;
    v->fieldType = DCGM_FT_DOUBLE;
    int k = fields[i] - DCGM_FI_PROF_SM_ACTIVE;
    if (!fake.watching) {
      v->status = DCGM_ST_NOT_WATCHED;
    } else if (k < 0 || k >= NPROF) {
      v->status = -13 /* DCGM_ST_UNKNOWN_FIELD */;
    } else if (fake.field_id == fields[i]) {
      v->status = fake.field_status;
    } else if (period < 1) {
      v->value.dbl = DCGM_FP64_BLANK;
    } else {
      int step = (int)(period - 1 < fake.nsteps ? period - 1 : fake.nsteps - 1);
      v->ts = fake.watch_start_us + period * fake.update_us;
      v->value.dbl = fake.values[step][k] + (k == 0 ? 0.01 * gpu : 0.0);
    }
  }
  if (profiling)
    fake.reads++;
  return DCGM_ST_OK;
}
