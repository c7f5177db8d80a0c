/* DCGM profiling fields through libdcgm, loaded with dlopen (dcgm.h). The
 * calls and their order follow DCGM's API documentation (dcgm_agent.h):
 * dcgmInit, dcgmConnect_v2 to a standalone host engine, a field group of
 * the four profiling fields plus the NVML index, dcgmWatchFields on all
 * GPUs, then dcgmGetLatestValuesForFields per GPU once a window. */
#include "dcgm.h"

#include <dlfcn.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "dcgm_abi.h"

#define DCGM_MIN_WINDOW_MS 100     /* profiling fields: "a hard limitation" per NVIDIA (api-facts-2 section 5) */
#define CONNECT_TIMEOUT_MS 1000    /* a host engine on this machine answers in far less; none means no DCGM */
#define WINDOW_SLACK_NS 20000000LL /* a tick may come this early and still find the next value (as GPM's) */
#define MAX_NVML_GPUS 64

#define DCGM_SYMBOLS(X)                                                                                                \
  X(dcgmInit, (void))                                                                                                  \
  X(dcgmShutdown, (void))                                                                                              \
  X(dcgmConnect_v2, (const char *, dcgmConnectV2Params_v2 *, dcgmHandle_t *))                                          \
  X(dcgmDisconnect, (dcgmHandle_t))                                                                                    \
  X(dcgmGetAllSupportedDevices, (dcgmHandle_t, unsigned *, int *))                                                     \
  X(dcgmFieldGroupCreate, (dcgmHandle_t, int, const unsigned short *, const char *, dcgmFieldGrp_t *))                 \
  X(dcgmFieldGroupDestroy, (dcgmHandle_t, dcgmFieldGrp_t))                                                             \
  X(dcgmWatchFields, (dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t, long long, double, int))                             \
  X(dcgmUnwatchFields, (dcgmHandle_t, dcgmGpuGrp_t, dcgmFieldGrp_t))                                                   \
  X(dcgmUpdateAllFields, (dcgmHandle_t, int))                                                                          \
  X(dcgmGetLatestValuesForFields, (dcgmHandle_t, int, unsigned short *, unsigned, dcgmFieldValue_v1 *))

struct dcgm_api {
  const char *(*errorString)(dcgmReturn_t); /* optional */
#define X(name, args) dcgmReturn_t(*name) args;
  DCGM_SYMBOLS(X)
#undef X
};

/* The fields read each window and the column each fills; DCGM gives ratios. */
static const struct {
  unsigned short field;
  enum gw_gpu_metric metric;
  const char *name;
} field_map[] = {
    {DCGM_FI_PROF_SM_ACTIVE, GW_M_sm_active_pct, "SM active"},
    {DCGM_FI_PROF_SM_OCCUPANCY, GW_M_sm_occupancy_pct, "SM occupancy"},
    {DCGM_FI_PROF_PIPE_TENSOR_ACTIVE, GW_M_tensor_active_pct, "tensor pipe active"},
    {DCGM_FI_PROF_DRAM_ACTIVE, GW_M_dram_bw_pct, "DRAM active"},
};
enum { NFIELDS = sizeof field_map / sizeof field_map[0] };

struct dcgm_gpu {
  int dcgm_id;                 /* DCGM's gpuId for this NVML index, -1 none */
  unsigned unsupported;        /* bit per field_map entry DCGM said it cannot read here */
  int64_t last_ts_us[NFIELDS]; /* the newest value's timestamp given out */
  int64_t next_due_ns;         /* no new value can exist before this tick */
  int filled;
};

struct gw_dcgm {
  void *lib;
  struct dcgm_api api;
  dcgmHandle_t handle;
  dcgmFieldGrp_t field_group;
  int watching, connected, initialised;
  int gone; /* the host engine went away: no more calls */
  int64_t window_ns;
  struct dcgm_gpu gpu[MAX_NVML_GPUS];
};

static const char *status_text(const struct gw_dcgm *d, dcgmReturn_t rc) {
  const char *s = d->api.errorString ? d->api.errorString(rc) : NULL;
  return s ? s : "unknown DCGM status";
}

static void *open_library(struct gw_err *err) {
  const char *env = getenv("GPUWHY_DCGM_LIB");
  if (env && *env) {
    /* An explicit choice must not silently fall back to another library. */
    void *h = dlopen(env, RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
      const char *why = dlerror();
      gw_err_set(err, "DCGM not used: %s cannot be loaded (%s)", env, why ? why : "dlopen failed");
    }
    return h;
  }
  /* DCGM 4 first; DCGM 3's client library has the same calls. */
  void *h = dlopen("libdcgm.so.4", RTLD_LAZY | RTLD_LOCAL);
  if (!h)
    h = dlopen("libdcgm.so.3", RTLD_LAZY | RTLD_LOCAL);
  if (!h)
    gw_err_set(err, "DCGM not used: no libdcgm.so.4 or libdcgm.so.3 on this machine (install datacenter-gpu-manager)");
  return h;
}

int gw_dcgm_library_present(void) {
  struct gw_err err;
  void *h = open_library(&err);
  if (h)
    dlclose(h);
  return h != NULL;
}

static int load_symbols(struct gw_dcgm *d, struct gw_err *err) {
  d->api.errorString = (const char *(*)(dcgmReturn_t))dlsym(d->lib, "errorString");
#define X(name, args)                                                                                                  \
  *(void **)(&d->api.name) = dlsym(d->lib, #name);                                                                     \
  if (!d->api.name) {                                                                                                  \
    gw_err_set(err, "DCGM not used: the library has no %s (DCGM 3 or newer is needed)", #name);                        \
    return -1;                                                                                                         \
  }
  DCGM_SYMBOLS(X)
#undef X
  return 0;
}

/* Why a watch or a read of the profiling fields failed, in words a user can
 * act on. */
static void explain_watch_failure(const struct gw_dcgm *d, dcgmReturn_t rc, struct gw_err *err) {
  switch (rc) {
  case DCGM_ST_IN_USE:
    gw_err_set(err,
               "DCGM not used: the profiling counters are in use by another client (another watcher of other "
               "profiling fields, or Nsight/CUPTI profiling on the GPU): %s",
               status_text(d, rc));
    break;
  case DCGM_ST_MODULE_NOT_LOADED:
    gw_err_set(err, "DCGM not used: the host engine's profiling module is not loaded: %s", status_text(d, rc));
    break;
  case DCGM_ST_NOT_SUPPORTED:
  case DCGM_ST_PROFILING_NOT_SUPPORTED:
  case DCGM_ST_GPU_NOT_SUPPORTED:
    gw_err_set(err,
               "DCGM not used: its profiling fields are not supported on these GPUs (Volta and newer "
               "datacenter GPUs): %s",
               status_text(d, rc));
    break;
  case DCGM_ST_REQUIRES_ROOT:
  case DCGM_ST_NO_PERMISSION:
    gw_err_set(err, "DCGM not used: the host engine may not read the profiling counters: %s", status_text(d, rc));
    break;
  default:
    gw_err_set(err, "DCGM not used: watching the profiling fields failed: %s (%d)", status_text(d, rc), rc);
  }
}

/* NVML index of each DCGM GPU, from field 52: DCGM numbers GPUs its own way
 * (usually as NVML does); where the field cannot be read, the ids are taken
 * to be NVML's. */
static void map_gpus(struct gw_dcgm *d, const unsigned *ids, int n) {
  for (int i = 0; i < n; i++) {
    unsigned short field = DCGM_FI_DEV_NVML_INDEX;
    dcgmFieldValue_v1 v;
    memset(&v, 0, sizeof v);
    v.version = dcgmFieldValue_version1;
    long long index = ids[i];
    if (d->api.dcgmGetLatestValuesForFields(d->handle, (int)ids[i], &field, 1, &v) == DCGM_ST_OK &&
        v.status == DCGM_ST_OK && v.fieldType == DCGM_FT_INT64 && v.value.i64 >= 0 && v.value.i64 < MAX_NVML_GPUS)
      index = v.value.i64;
    if (index >= 0 && index < MAX_NVML_GPUS && d->gpu[index].dcgm_id < 0)
      d->gpu[index].dcgm_id = (int)ids[i];
  }
}

gw_status gw_dcgm_open(struct gw_dcgm **out, const char *address, unsigned window_ms, struct gw_err *err) {
  *out = NULL;
  struct gw_dcgm *d = gw_xcalloc(1, sizeof *d);
  for (int i = 0; i < MAX_NVML_GPUS; i++)
    d->gpu[i].dcgm_id = -1;
  if (window_ms < DCGM_MIN_WINDOW_MS)
    window_ms = DCGM_MIN_WINDOW_MS;
  d->window_ns = (int64_t)window_ms * 1000000LL;
  d->lib = open_library(err);
  if (!d->lib || load_symbols(d, err) != 0)
    goto fail;
  dcgmReturn_t rc = d->api.dcgmInit();
  if (rc != DCGM_ST_OK) {
    gw_err_set(err, "DCGM not used: dcgmInit failed: %s", status_text(d, rc));
    goto fail;
  }
  d->initialised = 1;

  const char *addr = address && *address ? address : GW_DCGM_DEFAULT_ADDRESS;
  dcgmConnectV2Params_v2 params = {.version = dcgmConnectV2Params_version2,
                                   .persistAfterDisconnect = 0, /* our watches leave with us */
                                   .timeoutMs = CONNECT_TIMEOUT_MS,
                                   .addressIsUnixSocket = strncmp(addr, "unix:", 5) == 0};
  rc = d->api.dcgmConnect_v2(params.addressIsUnixSocket ? addr + 5 : addr, &params, &d->handle);
  if (rc != DCGM_ST_OK) {
    gw_err_set(err, "DCGM not used: no host engine answered at %s (start nv-hostengine, or give --dcgm=HOST:PORT): %s",
               addr, status_text(d, rc));
    goto fail;
  }
  d->connected = 1;

  unsigned ids[DCGM_MAX_NUM_DEVICES];
  int n = 0;
  rc = d->api.dcgmGetAllSupportedDevices(d->handle, ids, &n);
  if (rc != DCGM_ST_OK || n <= 0) {
    gw_err_set(err, "DCGM not used: the host engine at %s lists no supported GPU%s%s", addr,
               rc != DCGM_ST_OK ? ": " : "", rc != DCGM_ST_OK ? status_text(d, rc) : "");
    goto fail;
  }
  if (n > DCGM_MAX_NUM_DEVICES)
    n = DCGM_MAX_NUM_DEVICES;

  unsigned short fields[NFIELDS + 1];
  for (int i = 0; i < NFIELDS; i++)
    fields[i] = field_map[i].field;
  fields[NFIELDS] = DCGM_FI_DEV_NVML_INDEX;
  /* Field group names are unique per host engine: one per recorder process. */
  char name[64];
  snprintf(name, sizeof name, "gpuwhy-%ld", (long)getpid());
  rc = d->api.dcgmFieldGroupCreate(d->handle, NFIELDS + 1, fields, name, &d->field_group);
  if (rc != DCGM_ST_OK) {
    gw_err_set(err, "DCGM not used: creating a field group failed: %s", status_text(d, rc));
    goto fail;
  }
  /* Keep two windows' worth: only the latest value is ever read. */
  double keep_s = 2.0 * (double)window_ms / 1000.0;
  rc = d->api.dcgmWatchFields(d->handle, DCGM_GROUP_ALL_GPUS, d->field_group, (long long)window_ms * 1000LL,
                              keep_s < 1.0 ? 1.0 : keep_s, 0);
  if (rc != DCGM_ST_OK) {
    explain_watch_failure(d, rc, err);
    goto fail;
  }
  d->watching = 1;
  /* One update now, so the NVML index can be read before the first window. */
  (void)d->api.dcgmUpdateAllFields(d->handle, 1);
  map_gpus(d, ids, n);
  *out = d;
  return GW_OK;
fail:
  gw_dcgm_close(d);
  return GW_ENOTSUP;
}

void gw_dcgm_close(struct gw_dcgm *d) {
  if (!d)
    return;
  if (d->watching && !d->gone)
    (void)d->api.dcgmUnwatchFields(d->handle, DCGM_GROUP_ALL_GPUS, d->field_group);
  if (d->field_group && d->connected && !d->gone)
    (void)d->api.dcgmFieldGroupDestroy(d->handle, d->field_group);
  if (d->connected)
    (void)d->api.dcgmDisconnect(d->handle);
  if (d->initialised)
    (void)d->api.dcgmShutdown();
  if (d->lib)
    dlclose(d->lib);
  free(d);
}

static void note(const struct gw_event_sink *events, int64_t t_ns, int gpu, const char *fmt, ...) GW_PRINTF(4, 5);
static void note(const struct gw_event_sink *events, int64_t t_ns, int gpu, const char *fmt, ...) {
  struct gw_event ev = {.t_ns = t_ns, .kind = "note", .gpu = gpu};
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(ev.message, sizeof ev.message, fmt, ap);
  va_end(ap);
  gw_emit(events, &ev);
}

/* A status that will not change while the host engine runs: stop asking. */
static int permanent(int status) {
  return status == DCGM_ST_NOT_SUPPORTED || status == DCGM_ST_PROFILING_NOT_SUPPORTED ||
         status == DCGM_ST_GPU_NOT_SUPPORTED || status == DCGM_ST_MODULE_NOT_LOADED || status == DCGM_ST_IN_USE ||
         status == DCGM_ST_NO_PERMISSION || status == DCGM_ST_REQUIRES_ROOT || status == DCGM_ST_PROFILING_MULTI_PASS;
}

int gw_dcgm_fill(struct gw_dcgm *d, unsigned gpu, int64_t t_ns, struct gw_gpu_sample *out,
                 const struct gw_event_sink *events) {
  if (!d || d->gone || gpu >= MAX_NVML_GPUS)
    return 0;
  struct dcgm_gpu *g = &d->gpu[gpu];
  if (g->dcgm_id < 0 || g->unsupported == (1u << NFIELDS) - 1 || t_ns < g->next_due_ns)
    return 0;
  unsigned short fields[NFIELDS];
  for (int i = 0; i < NFIELDS; i++)
    fields[i] = field_map[i].field;
  dcgmFieldValue_v1 v[NFIELDS];
  memset(v, 0, sizeof v);
  for (int i = 0; i < NFIELDS; i++)
    v[i].version = dcgmFieldValue_version1;
  dcgmReturn_t rc = d->api.dcgmGetLatestValuesForFields(d->handle, g->dcgm_id, fields, NFIELDS, v);
  if (rc == DCGM_ST_CONNECTION_NOT_VALID) {
    d->gone = 1;
    note(events, t_ns, -1, "DCGM: the host engine went away (%s); SM activity from DCGM ends here", status_text(d, rc));
    return 0;
  }
  if (rc != DCGM_ST_OK)
    return 0; /* a passing failure: the next tick asks again */
  int set = 0;
  int64_t newest_us = 0;
  for (int i = 0; i < NFIELDS; i++) {
    if ((g->unsupported >> i) & 1)
      continue;
    const dcgmFieldValue_v1 *x = &v[i];
    int not_supported = permanent(x->status) || (x->status == DCGM_ST_OK && x->fieldType == DCGM_FT_DOUBLE &&
                                                 x->value.dbl == DCGM_FP64_BLANK + 2.0); /* ..._NOT_SUPPORTED */
    if (not_supported) {
      g->unsupported |= 1u << i;
      note(events, t_ns, (int)gpu, "DCGM cannot read %s (field %u) on GPU %u: %s", field_map[i].name,
           field_map[i].field, gpu, status_text(d, x->status == DCGM_ST_OK ? DCGM_ST_NOT_SUPPORTED : x->status));
      continue;
    }
    /* blank (no window finished yet), not a ratio, or nothing new */
    if (x->status != DCGM_ST_OK || x->fieldType != DCGM_FT_DOUBLE || !(x->value.dbl >= 0) ||
        x->value.dbl >= DCGM_FP64_BLANK || x->ts <= g->last_ts_us[i])
      continue;
    g->last_ts_us[i] = x->ts;
    newest_us = x->ts > newest_us ? x->ts : newest_us;
    /* A ratio; counters can overshoot 1 by rounding. */
    gw_gpu_set(out, field_map[i].metric, 100.0 * fmin(1.0, x->value.dbl));
    set++;
  }
  if (set) {
    g->filled = 1;
    /* The next value comes one update period after this one (DCGM's clock
     * is this machine's; a stamp from the future waits one window at most). */
    int64_t from_ns = newest_us * 1000LL < t_ns ? newest_us * 1000LL : t_ns;
    g->next_due_ns = from_ns + d->window_ns - WINDOW_SLACK_NS;
  }
  return set;
}

int gw_dcgm_filled(const struct gw_dcgm *d, unsigned gpu) {
  return d && gpu < MAX_NVML_GPUS && d->gpu[gpu].filled;
}
