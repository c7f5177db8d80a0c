#include "import/import_nsys.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/cuda_calls.h"
#include "core/i18n.h"
#include "store/store.h"

/* NVTX event types (ENUM_NSYS_EVENT_TYPE). */
#define NVTX_MARK 34
#define NVTX_PUSH_POP_RANGE 59
#define NVTX_START_END_RANGE 60

#define MAX_PROCESSES 1024

struct nsys {
  sqlite3 *db;
  const char *name;
  struct gw_import_sink *sink;
  struct gw_nsys_result *res;
  struct gw_err *err;
  int64_t base_ns;
  int have_strings;
  uint8_t copy_kind[32], mem_kind[32]; /* nsys enum value -> CUPTI number */
};

/* English: the list is also kept in the recording (meta input.0.nsys_missing) */
static void note_missing(struct nsys *x, const char *what) {
  if (strstr(x->res->missing, what))
    return; /* once, not once per process */
  size_t len = strlen(x->res->missing);
  snprintf(x->res->missing + len, sizeof x->res->missing - len, "%s%s", len ? "; " : "", what);
}

static gw_status sql_error(struct nsys *x, const char *what) {
  gw_err_set(x->err, "%s: %s: %s", x->name, _(what), sqlite3_errmsg(x->db));
  return GW_EINPUT;
}

static int table_exists(struct nsys *x, const char *table) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db,
                         "SELECT 1 FROM sqlite_master WHERE type IN "
                         "('table','view') AND name = ?",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

static int column_exists(struct nsys *x, const char *table, const char *col) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, "SELECT 1 FROM pragma_table_info(?) WHERE name = ?", -1, &s, NULL) != SQLITE_OK)
    return 0;
  sqlite3_bind_text(s, 1, table, -1, SQLITE_STATIC);
  sqlite3_bind_text(s, 2, col, -1, SQLITE_STATIC);
  int found = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  return found;
}

/* Column list for a SELECT: required columns must exist (else an error
 * naming them), optional ones read as NULL when absent (and are noted). */
struct column_spec {
  const char *name;
  int required;
};

static gw_status build_select(struct nsys *x, const char *table, const struct column_spec *cols, int ncols,
                              const char *extra, char *sql, size_t cap) {
  size_t len = (size_t)snprintf(sql, cap, "SELECT ");
  char missing_req[256] = "", missing_opt[256] = "";
  for (int i = 0; i < ncols; i++) {
    int have = column_exists(x, table, cols[i].name);
    if (!have) {
      char *dst = cols[i].required ? missing_req : missing_opt;
      size_t l = strlen(dst);
      snprintf(dst + l, 256 - l, "%s%s", l ? ", " : "", cols[i].name);
    }
    len += (size_t)snprintf(sql + len, cap - len, "%s%s\"%s\"", i ? ", " : "", have ? "" : "NULL AS ", cols[i].name);
  }
  if (missing_req[0]) {
    gw_err_set(x->err,
               _("%s: table %s lacks column(s) %s (export schema version %s); "
                 "cannot import it"),
               x->name, table, missing_req, x->res->schema_version[0] ? x->res->schema_version : "unknown");
    return GW_EINPUT;
  }
  if (missing_opt[0]) {
    char what[400];
    snprintf(what, sizeof what, "%s.{%s}", table, missing_opt);
    note_missing(x, what);
  }
  len += (size_t)snprintf(sql + len, cap - len, " FROM \"%s\" %s", table, extra ? extra : "");
  if (len >= cap) {
    gw_err_set(x->err, _("%s: internal: query too long"), x->name);
    return GW_ERR;
  }
  return GW_OK;
}

static int64_t col_i64(sqlite3_stmt *s, int i, int64_t fallback) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? fallback : sqlite3_column_int64(s, i);
}
static uint32_t col_u32(sqlite3_stmt *s, int i) {
  int64_t v = col_i64(s, i, 0);
  return v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* nsys serialises process and thread ids: pid = (id >> 24) & 0xffffff (the
 * queries do that in SQL), tid = id & 0xffffff. */
static uint32_t tid_of(int64_t global) {
  return (uint32_t)(global & 0xffffff);
}

/* Times: ns from the session start, placed on the wall clock. */
static int span(struct nsys *x, sqlite3_stmt *s, int col_start, int col_end, uint64_t *start, uint64_t *end) {
  if (sqlite3_column_type(s, col_start) == SQLITE_NULL || sqlite3_column_type(s, col_end) == SQLITE_NULL)
    return 0;
  int64_t a = sqlite3_column_int64(s, col_start), b = sqlite3_column_int64(s, col_end);
  if (a < 0 || b < a || a > INT64_MAX - x->base_ns || b > INT64_MAX - x->base_ns)
    return 0;
  *start = (uint64_t)(a + x->base_ns);
  *end = (uint64_t)(b + x->base_ns);
  return 1;
}

/* ---- header facts ---- */

static void read_schema_version(struct nsys *x) {
  sqlite3_stmt *s;
  if (!table_exists(x, "META_DATA_EXPORT") || !column_exists(x, "META_DATA_EXPORT", "name") ||
      !column_exists(x, "META_DATA_EXPORT", "value")) {
    note_missing(x, "META_DATA_EXPORT (schema version unknown)");
    return;
  }
  if (sqlite3_prepare_v2(x->db,
                         "SELECT value FROM META_DATA_EXPORT WHERE name = "
                         "'EXPORT_SCHEMA_VERSION'",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_text(s, 0))
    gw_strlcpy(x->res->schema_version, (const char *)sqlite3_column_text(s, 0), sizeof x->res->schema_version);
  sqlite3_finalize(s);
}

static void read_session_start(struct nsys *x) {
  sqlite3_stmt *s;
  x->base_ns = 0;
  x->res->time_relative = 1;
  if (!table_exists(x, "TARGET_INFO_SESSION_START_TIME") ||
      !column_exists(x, "TARGET_INFO_SESSION_START_TIME", "utcEpochNs")) {
    note_missing(x, "TARGET_INFO_SESSION_START_TIME.utcEpochNs");
    return;
  }
  if (sqlite3_prepare_v2(x->db, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1", -1, &s, NULL) !=
      SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) != SQLITE_NULL && sqlite3_column_int64(s, 0) > 0) {
    x->base_ns = sqlite3_column_int64(s, 0);
    x->res->time_relative = 0;
  }
  sqlite3_finalize(s);
}

/* Enum numbers: from the export's own ENUM_* tables when present (by the
 * names there), else the numbers the nsys documentation gives. */
static void read_enums(struct nsys *x) {
  for (int i = 0; i < 32; i++)
    x->copy_kind[i] = x->mem_kind[i] = 0;
  for (int i = 0; i <= 10; i++)
    x->copy_kind[i] = (uint8_t)i; /* same numbers as CUPTI */
  x->copy_kind[11] = 1;           /* unified-memory HtoD, DtoH, DtoD: the same directions */
  x->copy_kind[12] = 2;
  x->copy_kind[13] = 8;
  for (int i = 0; i <= 6; i++)
    x->mem_kind[i] = (uint8_t)(i + 1); /* nsys 0 Pageable .. 6 Managed Static;
                                          CUPTI counts from 1 */
  static const char *const copy_names[] = {"HTOD", "DTOH", "HTOA", "ATOH", "ATOA",
                                           "ATOD", "DTOA", "DTOD", "HTOH", "PTOP"};
  static const char *const mem_names[] = {"PAGEABLE", "PINNED",        "DEVICE",        "ARRAY",
                                          "MANAGED",  "DEVICE_STATIC", "MANAGED_STATIC"};
  const char *tables[2] = {"ENUM_CUDA_MEMCPY_OPER", "ENUM_CUDA_MEM_KIND"};
  for (int t = 0; t < 2; t++) {
    sqlite3_stmt *s;
    char sql[128];
    if (!table_exists(x, tables[t]) || !column_exists(x, tables[t], "id") || !column_exists(x, tables[t], "name"))
      continue;
    snprintf(sql, sizeof sql, "SELECT id, name FROM %s", tables[t]);
    if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
      continue;
    while (sqlite3_step(s) == SQLITE_ROW) {
      int64_t id = sqlite3_column_int64(s, 0);
      const char *nm = (const char *)sqlite3_column_text(s, 1);
      if (!nm || id < 0 || id >= 32)
        continue;
      char up[96];
      size_t k = 0;
      for (; nm[k] && k + 1 < sizeof up; k++)
        up[k] = (char)toupper((unsigned char)nm[k]);
      up[k] = '\0';
      if (t == 0) {
        for (size_t c = 0; c < sizeof copy_names / sizeof copy_names[0]; c++)
          if (strstr(up, copy_names[c]))
            x->copy_kind[id] = (uint8_t)(c + 1);
      } else {
        uint8_t kind = 0;
        size_t best = 0;
        for (size_t c = 0; c < sizeof mem_names / sizeof mem_names[0]; c++)
          if (strstr(up, mem_names[c]) && strlen(mem_names[c]) > best) {
            best = strlen(mem_names[c]); /* DEVICE_STATIC over DEVICE */
            kind = (uint8_t)(c + 1);
          }
        x->mem_kind[id] = kind;
      }
    }
    sqlite3_finalize(s);
  }
}

static gw_status read_gpus(struct nsys *x) {
  if (!table_exists(x, "TARGET_INFO_GPU") || !column_exists(x, "TARGET_INFO_GPU", "id")) {
    note_missing(x, "TARGET_INFO_GPU (GPU names)");
    return GW_OK;
  }
  static const struct column_spec cols[] = {{"id", 1}, {"name", 0}, {"totalMemory", 0}, {"smCount", 0}};
  char sql[512];
  /* GPU facts are a nicety: an odd TARGET_INFO_GPU is noted, not fatal */
  struct gw_err quiet;
  struct gw_err *keep = x->err;
  x->err = &quiet;
  gw_status rc = build_select(x, "TARGET_INFO_GPU", cols, 4, NULL, sql, sizeof sql);
  x->err = keep;
  sqlite3_stmt *s;
  if (rc || sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
    return GW_OK;
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t id = col_i64(s, 0, -1);
    if (id < 0 || id >= GW_SINK_MAX_GPU_INDEX)
      continue;
    struct gw_sink_device d;
    memset(&d, 0, sizeof d);
    d.input_index = 0;
    d.device = (uint32_t)id;
    const unsigned char *nm = sqlite3_column_text(s, 1);
    if (nm)
      gw_strlcpy(d.name, (const char *)nm, sizeof d.name);
    int64_t mem = col_i64(s, 2, 0);
    d.mem_total_bytes = mem > 0 ? (uint64_t)mem : 0;
    int64_t sms = col_i64(s, 3, 0);
    d.num_sms = sms > 0 && sms < 100000 ? (int)sms : 0;
    gw_sink_add_device(x->sink, &d);
  }
  sqlite3_finalize(s);
  return GW_OK;
}

/* ---- processes ---- */

static const char *const ACTIVITY_TABLES[] = {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY",
                                              "CUPTI_ACTIVITY_KIND_MEMSET", "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION"};
static const char *const THREAD_TABLES[] = {"CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_DRIVER", "NVTX_EVENTS"};

static int cmp_u32(const void *a, const void *b) {
  uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
  return x < y ? -1 : x > y;
}

/* Every process with records, in pid order. */
static gw_status list_pids(struct nsys *x, uint32_t *pids, int *npids) {
  *npids = 0;
  char sql[256];
  for (int t = 0; t < 7; t++) {
    const char *table = t < 4 ? ACTIVITY_TABLES[t] : THREAD_TABLES[t - 4];
    const char *col = t < 4 ? "globalPid" : "globalTid";
    if (!table_exists(x, table) || !column_exists(x, table, col))
      continue;
    snprintf(sql, sizeof sql, "SELECT DISTINCT (\"%s\" >> 24) & 16777215 FROM \"%s\"", col, table);
    sqlite3_stmt *s;
    if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
      return sql_error(x, N_("listing processes"));
    int rc;
    while ((rc = sqlite3_step(s)) == SQLITE_ROW) {
      uint32_t p = (uint32_t)sqlite3_column_int64(s, 0);
      int known = 0;
      for (int i = 0; i < *npids && !known; i++)
        known = pids[i] == p;
      if (!known && *npids < MAX_PROCESSES)
        pids[(*npids)++] = p;
    }
    sqlite3_finalize(s);
    if (rc != SQLITE_DONE)
      return sql_error(x, N_("listing processes"));
  }
  qsort(pids, (size_t)*npids, sizeof *pids, cmp_u32);
  return GW_OK;
}

/* WHERE clause for one process of a table (tables without the id column
 * belong to the first process). */
static void where_pid(struct nsys *x, const char *table, const char *col, uint32_t pid, int first, char *out,
                      size_t cap) {
  if (column_exists(x, table, col))
    snprintf(out, cap, "WHERE ((\"%s\" >> 24) & 16777215) = %u", col, pid);
  else
    snprintf(out, cap, "%s", first ? "" : "WHERE 0");
}

static int gpu_of(struct nsys *x, sqlite3_stmt *s, int col, gw_status *rc) {
  int64_t dev = col_i64(s, col, 0);
  if (dev < 0 || dev >= GW_SINK_MAX_GPU_INDEX) {
    gw_err_set(x->err, _("%s: deviceId %" PRId64 " outside 0-4095"), x->name, dev);
    *rc = GW_EINPUT;
    return -1;
  }
  int g = gw_sink_gpu_for(x->sink, (uint32_t)dev, x->err);
  if (g < 0)
    *rc = GW_EINPUT;
  return g;
}

static gw_status import_kernels(struct nsys *x, uint32_t pid, int first) {
  const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!table_exists(x, table))
    return GW_OK;
  int demangled = column_exists(x, table, "demangledName"), short_name = column_exists(x, table, "shortName");
  if (!demangled && !short_name) {
    gw_err_set(x->err,
               _("%s: table %s has neither demangledName nor shortName: kernel "
                 "names unknown"),
               x->name, table);
    return GW_EINPUT;
  }
  if (!x->have_strings) {
    gw_err_set(x->err,
               _("%s: kernels refer to names in StringIds, and the export has no "
                 "StringIds table"),
               x->name);
    return GW_EINPUT;
  }
  const struct column_spec cols[] = {
      {"start", 1},
      {"end", 1},
      {"deviceId", 1},
      {"streamId", 1},
      {"contextId", 0},
      {"correlationId", 0},
      {"gridX", 0},
      {"gridY", 0},
      {"gridZ", 0},
      {"blockX", 0},
      {"blockY", 0},
      {"blockZ", 0},
      {"registersPerThread", 0},
      {"staticSharedMemory", 0},
      {"dynamicSharedMemory", 0},
      {"graphNodeId", 0},
      {demangled ? "demangledName" : "shortName", 1},
  };
  char where[160], sql[2048];
  where_pid(x, table, "globalPid", pid, first, where, sizeof where);
  gw_status rc = build_select(x, table, cols, (int)(sizeof cols / sizeof cols[0]), where, sql, sizeof sql);
  if (rc)
    return rc;
  /* names joined in SQLite: one pass, no name table of our own */
  char joined[2300];
  snprintf(joined, sizeof joined,
           "SELECT k.*, s.value FROM (%s) k LEFT JOIN StringIds s ON s.id = "
           "k.\"%s\"",
           sql, demangled ? "demangledName" : "shortName");
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, joined, -1, &s, NULL) != SQLITE_OK)
    return sql_error(x, N_("reading kernels"));
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc) {
    struct gw_wire_kernel k;
    memset(&k, 0, sizeof k);
    k.h.type = GW_WIRE_KERNEL;
    k.h.size_bytes = sizeof k;
    if (!span(x, s, 0, 1, &k.start_ns, &k.end_ns)) {
      k.h.flags |= GW_WIRE_KERNEL_NO_TIMESTAMP;
      k.start_ns = k.end_ns = 0;
    }
    int gpu = gpu_of(x, s, 2, &rc);
    if (gpu < 0)
      break;
    k.device = (uint32_t)gpu;
    k.stream = col_u32(s, 3);
    k.context = col_u32(s, 4);
    k.correlation = col_u32(s, 5);
    k.grid_x = col_u32(s, 6);
    k.grid_y = col_u32(s, 7);
    k.grid_z = col_u32(s, 8);
    k.block_x = col_u32(s, 9);
    k.block_y = col_u32(s, 10);
    k.block_z = col_u32(s, 11);
    k.regs_per_thread = col_u32(s, 12);
    k.static_shmem_bytes = col_u32(s, 13);
    k.dynamic_shmem_bytes = col_u32(s, 14);
    int64_t node = col_i64(s, 15, 0);
    k.graph_node_id = node > 0 ? (uint64_t)node : 0;
    const char *nm = (const char *)sqlite3_column_text(s, 17);
    size_t len = nm ? (size_t)sqlite3_column_bytes(s, 17) : 0;
    if (nm &&
        ((len >= 11 && memcmp(nm, "ncclKernel_", 11) == 0) || (len >= 14 && memcmp(nm, "ncclDevKernel_", 14) == 0)))
      k.h.flags |= GW_WIRE_KERNEL_NCCL;
    rc = gw_sink_kernel(x->sink, &k, nm ? nm : "", len, x->err);
  }
  if (!rc && step != SQLITE_DONE)
    rc = sql_error(x, N_("reading kernels"));
  sqlite3_finalize(s);
  return rc;
}

static gw_status import_copies(struct nsys *x, uint32_t pid, int first, int is_memset) {
  const char *table = is_memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
  if (!table_exists(x, table))
    return GW_OK;
  const struct column_spec cols[] = {
      {"start", 1},
      {"end", 1},
      {"deviceId", 1},
      {"streamId", 1},
      {"contextId", 0},
      {"correlationId", 0},
      {"bytes", 1},
      {is_memset ? "memKind" : "copyKind", !is_memset},
      {is_memset ? "value" : "srcKind", 0},
      {is_memset ? "graphNodeId" : "dstKind", 0},
  };
  char where[160], sql[2048];
  where_pid(x, table, "globalPid", pid, first, where, sizeof where);
  gw_status rc = build_select(x, table, cols, (int)(sizeof cols / sizeof cols[0]), where, sql, sizeof sql);
  if (rc)
    return rc;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
    return sql_error(x, is_memset ? N_("reading memsets") : N_("reading copies"));
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc) {
    uint64_t a, b;
    if (!span(x, s, 0, 1, &a, &b)) {
      gw_sink_counts(x->sink)->skipped++;
      continue;
    }
    int gpu = gpu_of(x, s, 2, &rc);
    if (gpu < 0)
      break;
    int64_t bytes = col_i64(s, 6, 0);
    int64_t k7 = col_i64(s, 7, -1), k8 = col_i64(s, 8, -1), k9 = col_i64(s, 9, -1);
    if (is_memset) {
      struct gw_wire_memset m;
      memset(&m, 0, sizeof m);
      m.h.type = GW_WIRE_MEMSET;
      m.h.size_bytes = sizeof m;
      m.start_ns = a;
      m.end_ns = b;
      m.device = (uint32_t)gpu;
      m.stream = col_u32(s, 3);
      m.context = col_u32(s, 4);
      m.correlation = col_u32(s, 5);
      m.bytes = bytes > 0 ? (uint64_t)bytes : 0;
      m.mem_kind = k7 >= 0 && k7 < 32 ? x->mem_kind[k7] : 0;
      m.value = k8 >= 0 && k8 <= UINT32_MAX ? (uint32_t)k8 : 0;
      rc = gw_sink_memset(x->sink, &m, x->err);
    } else {
      struct gw_wire_memcpy m;
      memset(&m, 0, sizeof m);
      m.h.type = GW_WIRE_MEMCPY;
      m.h.size_bytes = sizeof m;
      m.start_ns = a;
      m.end_ns = b;
      m.device = (uint32_t)gpu;
      m.stream = col_u32(s, 3);
      m.context = col_u32(s, 4);
      m.correlation = col_u32(s, 5);
      m.bytes = bytes > 0 ? (uint64_t)bytes : 0;
      m.copy_kind = k7 >= 0 && k7 < 32 ? x->copy_kind[k7] : 0;
      m.src_kind = k8 >= 0 && k8 < 32 ? x->mem_kind[k8] : 0;
      m.dst_kind = k9 >= 0 && k9 < 32 ? x->mem_kind[k9] : 0;
      rc = gw_sink_memcpy(x->sink, &m, x->err);
    }
  }
  if (!rc && step != SQLITE_DONE)
    rc = sql_error(x, N_("reading copies"));
  sqlite3_finalize(s);
  return rc;
}

static gw_status import_syncs(struct nsys *x, uint32_t pid, int first) {
  const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  if (!table_exists(x, table))
    return GW_OK;
  const struct column_spec cols[] = {{"start", 1},    {"end", 1},           {"syncType", 1}, {"contextId", 0},
                                     {"streamId", 0}, {"correlationId", 0}, {"eventId", 0}};
  char where[160], sql[1024];
  where_pid(x, table, "globalPid", pid, first, where, sizeof where);
  gw_status rc = build_select(x, table, cols, 7, where, sql, sizeof sql);
  if (rc)
    return rc;
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, sql, -1, &s, NULL) != SQLITE_OK)
    return sql_error(x, N_("reading synchronisations"));
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc) {
    struct gw_wire_sync y;
    memset(&y, 0, sizeof y);
    y.h.type = GW_WIRE_SYNC;
    y.h.size_bytes = sizeof y;
    if (!span(x, s, 0, 1, &y.start_ns, &y.end_ns)) {
      gw_sink_counts(x->sink)->skipped++;
      continue;
    }
    int64_t type = col_i64(s, 2, 0);
    y.sync_type = type >= 0 && type <= 4 ? (uint32_t)type : 0;
    y.context = col_u32(s, 3);
    y.stream = col_u32(s, 4);
    y.correlation = col_u32(s, 5);
    y.cuda_event_id = col_u32(s, 6);
    rc = gw_sink_sync(x->sink, &y, x->err);
  }
  if (!rc && step != SQLITE_DONE)
    rc = sql_error(x, N_("reading synchronisations"));
  sqlite3_finalize(s);
  return rc;
}

static gw_status import_api(struct nsys *x, uint32_t pid, int first, int driver) {
  const char *table = driver ? "CUPTI_ACTIVITY_KIND_DRIVER" : "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!table_exists(x, table))
    return GW_OK;
  const struct column_spec cols[] = {{"start", 1},         {"end", 1},         {"globalTid", 1},
                                     {"correlationId", 0}, {"returnValue", 0}, {"nameId", 0}};
  char where[160], sql[1024];
  where_pid(x, table, "globalTid", pid, first, where, sizeof where);
  gw_status rc = build_select(x, table, cols, 6, where, sql, sizeof sql);
  if (rc)
    return rc;
  char joined[1300];
  if (x->have_strings && column_exists(x, table, "nameId"))
    snprintf(joined, sizeof joined,
             "SELECT r.*, s.value FROM (%s) r LEFT JOIN StringIds s ON s.id = "
             "r.nameId",
             sql);
  else
    snprintf(joined, sizeof joined, "SELECT r.*, NULL FROM (%s) r", sql);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, joined, -1, &s, NULL) != SQLITE_OK)
    return sql_error(x, N_("reading API calls"));
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc) {
    struct gw_wire_api a;
    memset(&a, 0, sizeof a);
    a.h.type = GW_WIRE_API;
    a.h.size_bytes = sizeof a;
    if (!span(x, s, 0, 1, &a.start_ns, &a.end_ns)) {
      gw_sink_counts(x->sink)->skipped++;
      continue;
    }
    a.tid = tid_of(col_i64(s, 2, 0));
    a.correlation = col_u32(s, 3);
    a.return_value = col_u32(s, 4);
    a.domain = driver ? GW_WIRE_API_DRIVER : GW_WIRE_API_RUNTIME;
    const char *call = (const char *)sqlite3_column_text(s, 6);
    a.cbid = gw_cuda_call_cbid(call, call ? (size_t)sqlite3_column_bytes(s, 6) : 0, driver);
    rc = gw_sink_api(x->sink, &a, x->err);
  }
  if (!rc && step != SQLITE_DONE)
    rc = sql_error(x, N_("reading API calls"));
  sqlite3_finalize(s);
  return rc;
}

int gw_nsys_step_number(const char *name, size_t len, int64_t *step) {
  /* the number at the end, after a separator or directly after the word */
  size_t e = len;
  while (e > 0 && (name[e - 1] == ' ' || name[e - 1] == '\t'))
    e--;
  size_t d = e;
  while (d > 0 && name[d - 1] >= '0' && name[d - 1] <= '9')
    d--;
  if (d == e || e - d > 18)
    return 0;
  size_t w = d;
  while (w > 0 && (name[w - 1] == ' ' || name[w - 1] == '#' || name[w - 1] == '_' || name[w - 1] == ':' ||
                   name[w - 1] == '=' || name[w - 1] == '-'))
    w--;
  char word[32];
  size_t k = 0;
  for (size_t i = 0; i < w; i++) {
    char c = name[i];
    if (c == ' ' || c == '_' || c == '-')
      continue; /* "train step", "train_step" */
    if (k + 1 >= sizeof word)
      return 0;
    word[k++] = (char)tolower((unsigned char)c);
  }
  word[k] = '\0';
  static const char *const words[] = {"step",      "profilerstep", "iteration", "iter",
                                      "trainstep", "trainingstep", "batch"};
  for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
    if (strcmp(word, words[i]) == 0) {
      int64_t v = 0;
      for (size_t i2 = d; i2 < e; i2++)
        v = v * 10 + (name[i2] - '0');
      *step = v;
      return 1;
    }
  return 0;
}

static gw_status import_nvtx(struct nsys *x, uint32_t pid, int first) {
  const char *table = "NVTX_EVENTS";
  if (!table_exists(x, table))
    return GW_OK;
  int has_text = column_exists(x, table, "text"), has_text_id = column_exists(x, table, "textId");
  if (!has_text && !has_text_id) {
    gw_err_set(x->err,
               _("%s: table NVTX_EVENTS has neither text nor textId: range names "
                 "unknown"),
               x->name);
    return GW_EINPUT;
  }
  const struct column_spec cols[] = {{"start", 1}, {"end", 0},    {"eventType", 1}, {"globalTid", 1},
                                     {"text", 0},  {"textId", 0}, {"domainId", 0}};
  char where[200], sql[1024];
  where_pid(x, table, "globalTid", pid, first, where, sizeof where);
  size_t wl = strlen(where);
  snprintf(where + wl, sizeof where - wl, "%s eventType IN (%d, %d, %d)", wl ? " AND" : "WHERE", NVTX_MARK,
           NVTX_PUSH_POP_RANGE, NVTX_START_END_RANGE);
  gw_status rc = build_select(x, table, cols, 7, where, sql, sizeof sql);
  if (rc)
    return rc;
  char joined[1300];
  if (x->have_strings && has_text_id)
    snprintf(joined, sizeof joined,
             "SELECT n.*, COALESCE(n.text, s.value) FROM (%s) n LEFT JOIN "
             "StringIds s ON s.id = n.textId",
             sql);
  else
    snprintf(joined, sizeof joined, "SELECT n.*, n.text FROM (%s) n", sql);
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(x->db, joined, -1, &s, NULL) != SQLITE_OK)
    return sql_error(x, N_("reading NVTX events"));
  int step;
  while ((step = sqlite3_step(s)) == SQLITE_ROW && !rc) {
    int64_t type = col_i64(s, 2, 0);
    uint64_t a, b;
    int instant = type == NVTX_MARK;
    if (instant ? !span(x, s, 0, 0, &a, &b) : !span(x, s, 0, 1, &a, &b)) {
      gw_sink_counts(x->sink)->skipped++; /* a range never closed */
      continue;
    }
    const char *text = (const char *)sqlite3_column_text(s, 7);
    size_t len = text ? (size_t)sqlite3_column_bytes(s, 7) : 0;
    int64_t number;
    if (!instant && text && gw_nsys_step_number(text, len, &number)) {
      x->res->nvtx_steps++;
      if (first)
        rc = gw_sink_step(x->sink, (int64_t)a, (int64_t)b, number, "nsys", x->err);
      continue;
    }
    struct gw_wire_marker m;
    memset(&m, 0, sizeof m);
    m.h.type = GW_WIRE_MARKER;
    m.h.size_bytes = sizeof m;
    if (instant)
      m.h.flags |= GW_WIRE_MARKER_INSTANT;
    m.start_ns = a;
    m.end_ns = b;
    m.tid = tid_of(col_i64(s, 3, 0));
    x->res->nvtx_markers++;
    rc = gw_sink_marker(x->sink, &m, text ? text : "", len, "nvtx", x->err);
  }
  if (!rc && step != SQLITE_DONE)
    rc = sql_error(x, N_("reading NVTX events"));
  sqlite3_finalize(s);
  return rc;
}

static int is_nsys_export(struct nsys *x) {
  static const char *const markers[] = {"META_DATA_EXPORT",
                                        "StringIds",
                                        "CUPTI_ACTIVITY_KIND_KERNEL",
                                        "CUPTI_ACTIVITY_KIND_RUNTIME",
                                        "NVTX_EVENTS",
                                        "TARGET_INFO_SESSION_START_TIME"};
  for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
    if (table_exists(x, markers[i]))
      return 1;
  return 0;
}

gw_status gw_nsys_import(sqlite3 *db, const char *name, struct gw_import_sink *sink, struct gw_nsys_result *res,
                         struct gw_err *err) {
  memset(res, 0, sizeof *res);
  struct nsys x = {.db = db, .name = name, .sink = sink, .res = res, .err = err};
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_master", -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, _("%s: not a readable SQLite database: %s"), name, sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  int ok = sqlite3_step(s) == SQLITE_ROW;
  sqlite3_finalize(s);
  if (!ok) {
    gw_err_set(err, _("%s: not a readable SQLite database: %s"), name, sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  int app_id = 0;
  if (sqlite3_prepare_v2(db, "PRAGMA application_id", -1, &s, NULL) == SQLITE_OK) {
    if (sqlite3_step(s) == SQLITE_ROW)
      app_id = sqlite3_column_int(s, 0);
    sqlite3_finalize(s);
  }
  if (app_id == GW_STORE_APPLICATION_ID) {
    gw_err_set(err, _("%s: already a gpuwhy recording: run gpuwhy report on it directly"), name);
    return GW_EINPUT;
  }
  if (!is_nsys_export(&x)) {
    gw_err_set(err,
               _("%s: an SQLite database, but not an Nsight Systems export (no "
                 "META_DATA_EXPORT, StringIds, "
                 "CUPTI_ACTIVITY_KIND_* or NVTX_EVENTS tables)"),
               name);
    return GW_EINPUT;
  }
  read_schema_version(&x);
  read_session_start(&x);
  read_enums(&x);
  x.have_strings =
      table_exists(&x, "StringIds") && column_exists(&x, "StringIds", "id") && column_exists(&x, "StringIds", "value");
  static const char *const optional[] = {"CUPTI_ACTIVITY_KIND_KERNEL",          "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET",          "CUPTI_ACTIVITY_KIND_RUNTIME",
                                         "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"};
  for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
    if (!table_exists(&x, optional[i]))
      note_missing(&x, optional[i]);
  gw_status rc = read_gpus(&x);
  if (rc)
    return rc;
  uint32_t *pids = gw_xcalloc(MAX_PROCESSES, sizeof *pids);
  int npids = 0;
  if ((rc = list_pids(&x, pids, &npids))) {
    free(pids);
    return rc;
  }
  if (npids == 0)
    pids[npids++] = 0; /* tables without process ids, or no rows at all */
  for (int i = 0; i < npids && !rc; i++) {
    int first = i == 0;
    if ((rc = gw_sink_begin_process(sink, 0, 1, pids[i], err)))
      break;
    if (!rc)
      rc = import_kernels(&x, pids[i], first);
    if (!rc)
      rc = import_copies(&x, pids[i], first, 0);
    if (!rc)
      rc = import_copies(&x, pids[i], first, 1);
    if (!rc)
      rc = import_syncs(&x, pids[i], first);
    if (!rc)
      rc = import_api(&x, pids[i], first, 0);
    if (!rc)
      rc = import_api(&x, pids[i], first, 1);
    if (!rc)
      rc = import_nvtx(&x, pids[i], first);
    uint32_t used;
    if (!rc)
      rc = gw_sink_end_process(sink, &used, err);
  }
  free(pids);
  return rc;
}
