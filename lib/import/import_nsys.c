#include "import/import_nsys.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "core/cuda_calls.h"
#include "core/i18n.h"
#include "store/nsys_sqlite.h"

/* NVTX event types (ENUM_NSYS_EVENT_TYPE). */
#define NVTX_MARK 34
#define NVTX_PUSH_POP_RANGE 59
#define NVTX_START_END_RANGE 60

#define MAX_PROCESSES 1024

struct nsys {
  struct gw_nsys_db *db;
  const char *name;
  struct gw_import_sink *sink;
  struct gw_nsys_result *res;
  struct gw_err *err;
  int64_t base_ns;
  int have_strings;
  uint8_t copy_kind[32], mem_kind[32]; /* nsys enum value -> CUPTI number */
};

static int64_t col_i64(const struct gw_nsys_rows *r, int i, int64_t fallback) {
  return gw_nsys_rows_null(r, i) ? fallback : gw_nsys_rows_i64(r, i);
}
static uint32_t col_u32(const struct gw_nsys_rows *r, int i) {
  int64_t v = col_i64(r, i, 0);
  return v >= 0 && v <= UINT32_MAX ? (uint32_t)v : 0;
}

/* nsys serialises process and thread ids: pid = (id >> 24) & 0xffffff (the
 * reader's queries do that), tid = id & 0xffffff. */
static uint32_t tid_of(int64_t global) {
  return (uint32_t)(global & 0xffffff);
}

/* Times: ns from the session start, placed on the wall clock. */
static int span(struct nsys *x, const struct gw_nsys_rows *r, int col_start, int col_end, uint64_t *start,
                uint64_t *end) {
  if (gw_nsys_rows_null(r, col_start) || gw_nsys_rows_null(r, col_end))
    return 0;
  int64_t a = gw_nsys_rows_i64(r, col_start), b = gw_nsys_rows_i64(r, col_end);
  if (a < 0 || b < a || a > INT64_MAX - x->base_ns || b > INT64_MAX - x->base_ns)
    return 0;
  *start = (uint64_t)(a + x->base_ns);
  *end = (uint64_t)(b + x->base_ns);
  return 1;
}

/* ---- header facts ---- */

static void read_session_start(struct nsys *x) {
  int64_t start_ns = 0;
  x->base_ns = 0;
  x->res->time_relative = 1;
  if (gw_nsys_db_session_start(x->db, &start_ns)) {
    x->base_ns = start_ns;
    x->res->time_relative = 0;
  }
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
    struct gw_nsys_rows *r = gw_nsys_db_enum_rows(x->db, tables[t]);
    if (!r)
      continue;
    while (gw_nsys_rows_next(r) == 1) {
      int64_t id = gw_nsys_rows_i64(r, 0);
      size_t nm_len;
      const char *nm = gw_nsys_rows_text(r, 1, &nm_len);
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
    gw_nsys_rows_close(r);
  }
}

/* GPU facts are a nicety: an odd TARGET_INFO_GPU is noted, not fatal. */
static void read_gpus(struct nsys *x) {
  struct gw_nsys_rows *r = gw_nsys_db_gpu_rows(x->db);
  if (!r)
    return;
  while (gw_nsys_rows_next(r) == 1) {
    int64_t id = col_i64(r, 0, -1);
    if (id < 0 || id >= GW_SINK_MAX_GPU_INDEX)
      continue;
    struct gw_sink_device d;
    memset(&d, 0, sizeof d);
    d.input_index = 0;
    d.device = (uint32_t)id;
    size_t nm_len;
    const char *nm = gw_nsys_rows_text(r, 1, &nm_len);
    if (nm)
      gw_strlcpy(d.name, nm, sizeof d.name);
    int64_t mem = col_i64(r, 2, 0);
    d.mem_total_bytes = mem > 0 ? (uint64_t)mem : 0;
    int64_t sms = col_i64(r, 3, 0);
    d.num_sms = sms > 0 && sms < 100000 ? (int)sms : 0;
    gw_sink_add_device(x->sink, &d);
  }
  gw_nsys_rows_close(r);
}

/* ---- processes ---- */

static int gpu_of(struct nsys *x, const struct gw_nsys_rows *r, int col, gw_status *rc) {
  int64_t dev = col_i64(r, col, 0);
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

/* What a row function needs besides the row. */
struct pass {
  int first;    /* the first process of the export: steps are taken from it */
  int variant;  /* driver API calls rather than runtime; memsets rather than copies */
  int name_col; /* the column of the row's name */
};

/* The first columns of a GPU activity table (kernels, copies, memsets), as
 * its row function reads them: span 0-1, device 2 (gpu_of), then stream 3,
 * context 4 and correlation 5 (GW_WIRE_SET_STREAM). */
/* clang-format off */
#define GPU_ACTIVITY_COLUMNS \
  {"start", 1}, {"end", 1}, {"deviceId", 1}, {"streamId", 1}, {"contextId", 0}, {"correlationId", 0}
/* clang-format on */

/* The rows of table that belong to process pid (process_column names it),
 * cols of each; a table without that column belongs to the first process. */
static struct gw_nsys_query rows_of_process(const char *table, const struct gw_nsys_column *cols, int ncols,
                                            const char *process_column, uint32_t pid, int first) {
  return (struct gw_nsys_query){.table = table,
                                .cols = cols,
                                .ncols = ncols,
                                .process_column = process_column,
                                .pid = pid,
                                .first_process = first};
}

/* Which of two columns, in order of preference, table has; NULL for neither. */
static const char *first_column_of(struct gw_nsys_db *db, const char *table, const char *preferred,
                                   const char *fallback) {
  if (gw_nsys_db_has_column(db, table, preferred))
    return preferred;
  return gw_nsys_db_has_column(db, table, fallback) ? fallback : NULL;
}

/* span, counting a row without a usable span as skipped. */
static int span_or_skip(struct nsys *x, const struct gw_nsys_rows *s, uint64_t *start, uint64_t *end) {
  if (span(x, s, 0, 1, start, end))
    return 1;
  gw_sink_counts(x->sink)->skipped++;
  return 0;
}

/* Runs q and hands each row to row until one fails; what names the reading
 * in messages. */
static gw_status each_row(struct nsys *x, const struct gw_nsys_query *q, const char *what,
                          gw_status (*row)(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass),
                          const struct pass *pass) {
  struct gw_nsys_rows *s;
  gw_status rc = gw_nsys_rows_open(x->db, q, what, &s, x->err);
  if (rc)
    return rc;
  int step = 0;
  while (!rc && (step = gw_nsys_rows_next(s)) == 1)
    rc = row(x, s, pass);
  if (!rc && step != 0)
    rc = gw_nsys_db_fail(x->db, what, x->err);
  gw_nsys_rows_close(s);
  return rc;
}

static gw_status kernel_row(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass) {
  gw_status rc = GW_OK;
  struct gw_wire_kernel k;
  gw_wire_kernel_init(&k, 0);
  if (!span(x, s, 0, 1, &k.start_ns, &k.end_ns)) {
    k.h.flags |= GW_WIRE_KERNEL_NO_TIMESTAMP;
    k.start_ns = k.end_ns = 0;
  }
  int gpu = gpu_of(x, s, 2, &rc);
  if (gpu < 0)
    return rc;
  GW_WIRE_SET_STREAM(&k, (uint32_t)gpu, col_u32(s, 4), col_u32(s, 3), col_u32(s, 5));
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
  size_t len;
  const char *nm = gw_nsys_rows_text(s, pass->name_col, &len);
  if (nm && ((len >= 11 && memcmp(nm, "ncclKernel_", 11) == 0) || (len >= 14 && memcmp(nm, "ncclDevKernel_", 14) == 0)))
    k.h.flags |= GW_WIRE_KERNEL_NCCL;
  return gw_sink_kernel(x->sink, &k, nm ? nm : "", len, x->err);
}

static gw_status import_kernels(struct nsys *x, uint32_t pid, int first, int variant) {
  (void)variant;
  const char *table = "CUPTI_ACTIVITY_KIND_KERNEL";
  if (!gw_nsys_db_has_table(x->db, table))
    return GW_OK;
  const char *name_column = first_column_of(x->db, table, "demangledName", "shortName");
  if (!name_column) {
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
  const struct gw_nsys_column cols[] = {
      GPU_ACTIVITY_COLUMNS,
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
      {name_column, 1},
  };
  const int ncols = (int)(sizeof cols / sizeof cols[0]);
  struct gw_nsys_query q = rows_of_process(table, cols, ncols, "globalPid", pid, first);
  q.name = GW_NSYS_NAME_ID;
  q.name_id_column = name_column;
  const struct pass pass = {.first = first, .name_col = ncols};
  return each_row(x, &q, "reading kernels", kernel_row, &pass);
}

/* An nsys enum value through its map (copy_kind, mem_kind) to CUPTI's
 * number: 0, unknown, for a value outside the map. */
static uint8_t mapped_kind(const uint8_t map[32], int64_t nsys_value) {
  return nsys_value >= 0 && nsys_value < 32 ? map[nsys_value] : 0;
}

static gw_status copy_row(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass) {
  uint64_t a, b;
  if (!span_or_skip(x, s, &a, &b))
    return GW_OK;
  gw_status rc = GW_OK;
  int gpu = gpu_of(x, s, 2, &rc);
  if (gpu < 0)
    return rc;
  int64_t bytes = col_i64(s, 6, 0);
  uint64_t moved_bytes = bytes > 0 ? (uint64_t)bytes : 0;
  int64_t k7 = col_i64(s, 7, -1), k8 = col_i64(s, 8, -1), k9 = col_i64(s, 9, -1);
  if (pass->variant) {
    struct gw_wire_memset m;
    gw_wire_memset_init(&m, 0);
    GW_WIRE_SET_TRANSFER(&m, a, b, moved_bytes, (uint32_t)gpu, col_u32(s, 4), col_u32(s, 3), col_u32(s, 5));
    m.mem_kind = mapped_kind(x->mem_kind, k7);
    m.value = k8 >= 0 && k8 <= UINT32_MAX ? (uint32_t)k8 : 0;
    return gw_sink_memset(x->sink, &m, x->err);
  }
  struct gw_wire_memcpy m;
  gw_wire_memcpy_init(&m, 0);
  GW_WIRE_SET_TRANSFER(&m, a, b, moved_bytes, (uint32_t)gpu, col_u32(s, 4), col_u32(s, 3), col_u32(s, 5));
  m.copy_kind = mapped_kind(x->copy_kind, k7);
  m.src_kind = mapped_kind(x->mem_kind, k8);
  m.dst_kind = mapped_kind(x->mem_kind, k9);
  return gw_sink_memcpy(x->sink, &m, x->err);
}

static gw_status import_copies(struct nsys *x, uint32_t pid, int first, int is_memset) {
  const char *table = is_memset ? "CUPTI_ACTIVITY_KIND_MEMSET" : "CUPTI_ACTIVITY_KIND_MEMCPY";
  if (!gw_nsys_db_has_table(x->db, table))
    return GW_OK;
  const struct gw_nsys_column cols[] = {
      GPU_ACTIVITY_COLUMNS,
      {"bytes", 1},
      {is_memset ? "memKind" : "copyKind", !is_memset},
      {is_memset ? "value" : "srcKind", 0},
      {is_memset ? "graphNodeId" : "dstKind", 0},
  };
  const struct gw_nsys_query q =
      rows_of_process(table, cols, (int)(sizeof cols / sizeof cols[0]), "globalPid", pid, first);
  const struct pass pass = {.first = first, .variant = is_memset};
  return each_row(x, &q, is_memset ? "reading memsets" : "reading copies", copy_row, &pass);
}

static gw_status sync_row(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass) {
  (void)pass;
  struct gw_wire_sync y;
  gw_wire_sync_init(&y, 0);
  if (!span_or_skip(x, s, &y.start_ns, &y.end_ns))
    return GW_OK;
  int64_t type = col_i64(s, 2, 0);
  y.sync_type = type >= 0 && type <= 4 ? (uint32_t)type : 0;
  y.context = col_u32(s, 3);
  y.stream = col_u32(s, 4);
  y.correlation = col_u32(s, 5);
  y.cuda_event_id = col_u32(s, 6);
  return gw_sink_sync(x->sink, &y, x->err);
}

static gw_status import_syncs(struct nsys *x, uint32_t pid, int first, int variant) {
  (void)variant;
  const char *table = "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION";
  if (!gw_nsys_db_has_table(x->db, table))
    return GW_OK;
  const struct gw_nsys_column cols[] = {{"start", 1},    {"end", 1},           {"syncType", 1}, {"contextId", 0},
                                        {"streamId", 0}, {"correlationId", 0}, {"eventId", 0}};
  const struct gw_nsys_query q = rows_of_process(table, cols, 7, "globalPid", pid, first);
  const struct pass pass = {.first = first};
  return each_row(x, &q, "reading synchronisations", sync_row, &pass);
}

static gw_status api_row(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass) {
  struct gw_wire_api a;
  gw_wire_api_init(&a, 0);
  if (!span_or_skip(x, s, &a.start_ns, &a.end_ns))
    return GW_OK;
  a.tid = tid_of(col_i64(s, 2, 0));
  a.correlation = col_u32(s, 3);
  a.return_value = col_u32(s, 4);
  a.domain = pass->variant ? GW_WIRE_API_DRIVER : GW_WIRE_API_RUNTIME;
  size_t call_len;
  const char *call = gw_nsys_rows_text(s, 6, &call_len);
  a.cbid = gw_cuda_call_cbid(call, call_len, pass->variant);
  return gw_sink_api(x->sink, &a, x->err);
}

static gw_status import_api(struct nsys *x, uint32_t pid, int first, int driver) {
  const char *table = driver ? "CUPTI_ACTIVITY_KIND_DRIVER" : "CUPTI_ACTIVITY_KIND_RUNTIME";
  if (!gw_nsys_db_has_table(x->db, table))
    return GW_OK;
  const struct gw_nsys_column cols[] = {{"start", 1},         {"end", 1},         {"globalTid", 1},
                                        {"correlationId", 0}, {"returnValue", 0}, {"nameId", 0}};
  /* the call's name from StringIds (NULL when that cannot be joined) */
  struct gw_nsys_query q = rows_of_process(table, cols, 6, "globalTid", pid, first);
  q.name = GW_NSYS_NAME_ID;
  q.name_id_column = "nameId";
  const struct pass pass = {.first = first, .variant = driver};
  return each_row(x, &q, "reading API calls", api_row, &pass);
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

static gw_status nvtx_row(struct nsys *x, const struct gw_nsys_rows *s, const struct pass *pass) {
  int64_t type = col_i64(s, 2, 0);
  uint64_t a, b;
  int instant = type == NVTX_MARK;
  if (instant ? !span(x, s, 0, 0, &a, &b) : !span(x, s, 0, 1, &a, &b)) {
    gw_sink_counts(x->sink)->skipped++; /* a range never closed */
    return GW_OK;
  }
  size_t len;
  const char *text = gw_nsys_rows_text(s, 7, &len);
  int64_t number;
  if (!instant && text && gw_nsys_step_number(text, len, &number)) {
    x->res->nvtx_steps++;
    return pass->first ? gw_sink_step(x->sink, (int64_t)a, (int64_t)b, number, "nsys", x->err) : GW_OK;
  }
  struct gw_wire_marker m;
  gw_wire_marker_init(&m, 0);
  if (instant)
    m.h.flags |= GW_WIRE_MARKER_INSTANT;
  m.start_ns = a;
  m.end_ns = b;
  m.tid = tid_of(col_i64(s, 3, 0));
  x->res->nvtx_markers++;
  return gw_sink_marker(x->sink, &m, text ? text : "", len, "nvtx", x->err);
}

static gw_status import_nvtx(struct nsys *x, uint32_t pid, int first, int variant) {
  (void)variant;
  const char *table = "NVTX_EVENTS";
  if (!gw_nsys_db_has_table(x->db, table))
    return GW_OK;
  if (!first_column_of(x->db, table, "text", "textId")) {
    gw_err_set(x->err,
               _("%s: table NVTX_EVENTS has neither text nor textId: range names "
                 "unknown"),
               x->name);
    return GW_EINPUT;
  }
  const struct gw_nsys_column cols[] = {{"start", 1}, {"end", 0},    {"eventType", 1}, {"globalTid", 1},
                                        {"text", 0},  {"textId", 0}, {"domainId", 0}};
  static const int types[] = {NVTX_MARK, NVTX_PUSH_POP_RANGE, NVTX_START_END_RANGE};
  struct gw_nsys_query q = rows_of_process(table, cols, 7, "globalTid", pid, first);
  q.type_column = "eventType";
  q.types = types;
  q.ntypes = 3;
  q.name = GW_NSYS_NAME_TEXT_OR_ID;
  q.name_text_column = "text";
  q.name_id_column = "textId";
  const struct pass pass = {.first = first};
  return each_row(x, &q, "reading NVTX events", nvtx_row, &pass);
}

/* What is read of each process, in this order: kernels, copies, memsets,
 * syncs, runtime and driver API calls, NVTX (variant as struct pass says). */
static const struct {
  gw_status (*import)(struct nsys *x, uint32_t pid, int first, int variant);
  int variant;
} PROCESS_TABLES[] = {
    {import_kernels, 0}, {import_copies, 0}, {import_copies, 1}, {import_syncs, 0},
    {import_api, 0},     {import_api, 1},    {import_nvtx, 0},
};

gw_status gw_nsys_import(struct gw_nsys_db *db, const char *name, struct gw_import_sink *sink,
                         struct gw_nsys_result *res, struct gw_err *err) {
  memset(res, 0, sizeof *res);
  struct nsys x = {.db = db, .name = name, .sink = sink, .res = res, .err = err};
  gw_status rc = gw_nsys_db_check(db, err);
  if (rc)
    return rc;
  gw_nsys_db_schema_version(db, res->schema_version, sizeof res->schema_version);
  read_session_start(&x);
  read_enums(&x);
  x.have_strings = gw_nsys_db_has_strings(db);
  static const char *const optional[] = {"CUPTI_ACTIVITY_KIND_KERNEL",          "CUPTI_ACTIVITY_KIND_MEMCPY",
                                         "CUPTI_ACTIVITY_KIND_MEMSET",          "CUPTI_ACTIVITY_KIND_RUNTIME",
                                         "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "NVTX_EVENTS"};
  for (size_t i = 0; i < sizeof optional / sizeof optional[0]; i++)
    if (!gw_nsys_db_has_table(db, optional[i]))
      gw_nsys_db_note_missing(db, optional[i]);
  read_gpus(&x);
  uint32_t *pids = gw_xcalloc(MAX_PROCESSES, sizeof *pids);
  int npids = 0;
  if ((rc = gw_nsys_db_list_pids(db, pids, MAX_PROCESSES, &npids, err))) {
    free(pids);
    return rc;
  }
  if (npids == 0)
    pids[npids++] = 0; /* tables without process ids, or no rows at all */
  for (int i = 0; i < npids && !rc; i++) {
    int first = i == 0;
    if ((rc = gw_sink_begin_process(sink, 0, 1, pids[i], err)))
      break;
    for (size_t t = 0; t < sizeof PROCESS_TABLES / sizeof PROCESS_TABLES[0] && !rc; t++)
      rc = PROCESS_TABLES[t].import(&x, pids[i], first, PROCESS_TABLES[t].variant);
    uint32_t used;
    if (!rc)
      rc = gw_sink_end_process(sink, &used, err);
  }
  free(pids);
  gw_strlcpy(res->missing, gw_nsys_db_missing(db), sizeof res->missing);
  return rc;
}
