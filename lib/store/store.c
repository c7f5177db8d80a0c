#include "store.h"
#include "store_sql.h"
#include "store_trace.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"

/* The thread sampler's tables (schema version 2; older recordings lack
 * them, and a writer creates them there when it first writes). */
#define THREAD_SCHEMA                                                                                                  \
  "CREATE TABLE IF NOT EXISTS thread_info (tid INTEGER PRIMARY KEY, pid INTEGER NOT NULL, role INTEGER NOT NULL,"      \
  " comm TEXT, first_t_ns INTEGER);"                                                                                   \
  "CREATE TABLE IF NOT EXISTS thread_sample (t_ns INTEGER NOT NULL, tid INTEGER NOT NULL, state INTEGER NOT NULL,"     \
  " wait INTEGER NOT NULL, syscall INTEGER, cpu_ns INTEGER);"                                                          \
  "CREATE INDEX IF NOT EXISTS thread_sample_t ON thread_sample(t_ns);"

/* Fixed part of the schema. The per-GPU metric tables are generated
 * from gpu_metrics.def so the store and the metric list cannot drift apart. */
static const char SCHEMA_FIXED[] =
    "CREATE TABLE run ("
    " id INTEGER PRIMARY KEY CHECK (id = 1),"
    " gpuwhy_version TEXT, source TEXT, started_ns INTEGER, ended_ns INTEGER,"
    " command TEXT, cwd TEXT, target_pid INTEGER, exit_status INTEGER,"
    " hostname TEXT, kernel TEXT, cpu_model TEXT, logical_cpus INTEGER, physical_cores INTEGER,"
    " mem_total_bytes INTEGER, driver_version TEXT, nvml_version TEXT, cuda_driver_version INTEGER,"
    " interval_ms INTEGER, gpu_note TEXT);"
    "CREATE TABLE env (name TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT);"
    "CREATE TABLE gpu ("
    " gpu INTEGER PRIMARY KEY, uuid TEXT, name TEXT, pci_bus_id TEXT, mem_total_bytes INTEGER,"
    " power_default_limit_mw INTEGER, power_min_limit_mw INTEGER, power_max_limit_mw INTEGER,"
    " sm_clock_max_mhz INTEGER, mem_clock_max_mhz INTEGER, pcie_gen_max INTEGER, pcie_width_max INTEGER,"
    " temp_slowdown_c INTEGER, temp_shutdown_c INTEGER, gpm_supported INTEGER, mig_enabled INTEGER,"
    " persistence_mode INTEGER, compute_mode INTEGER, ecc_enabled INTEGER, supported_clock_reasons INTEGER);"
    "CREATE TABLE gpu_proc (t_ns INTEGER NOT NULL, gpu INTEGER NOT NULL, pid INTEGER NOT NULL,"
    " used_mem_bytes INTEGER, sm_pct REAL, comm TEXT);"
    "CREATE TABLE host_sample (t_ns INTEGER NOT NULL, cpu_busy_pct REAL, cpu_user_pct REAL, cpu_system_pct REAL,"
    " cpu_iowait_pct REAL, cpu_steal_pct REAL, ncores INTEGER, mem_total_bytes INTEGER, mem_available_bytes INTEGER,"
    " swap_total_bytes INTEGER, swap_free_bytes INTEGER, psi_cpu_some_pct REAL, psi_mem_some_pct REAL,"
    " psi_mem_full_pct REAL, psi_io_some_pct REAL, psi_io_full_pct REAL, loadavg_1m REAL, procs_running INTEGER,"
    " on_battery INTEGER, governor TEXT);"
    "CREATE TABLE cpu_sample (t_ns INTEGER NOT NULL, core INTEGER NOT NULL, busy_pct REAL, user_pct REAL,"
    " system_pct REAL, iowait_pct REAL, steal_pct REAL);"
    "CREATE TABLE proc_sample (t_ns INTEGER NOT NULL, pid INTEGER NOT NULL, ppid INTEGER, role INTEGER, comm TEXT,"
    " state TEXT, cpu_pct REAL, threads INTEGER, threads_running INTEGER, rss_bytes INTEGER,"
    " main_thread_cpu_pct REAL, launch_threads_cpu_pct REAL);"
    "CREATE TABLE disk_sample (t_ns INTEGER NOT NULL, dev TEXT NOT NULL, util_pct REAL, await_ms REAL,"
    " r_per_s REAL, w_per_s REAL, read_bps REAL, write_bps REAL, aqu_sz REAL);"
    "CREATE TABLE event (t_ns INTEGER NOT NULL, kind TEXT NOT NULL, gpu INTEGER, code INTEGER, pid INTEGER,"
    " message TEXT);"
    /* pid .. samples came with the Python hook, compile_ns and shape after it; older recordings lack them
     * (readers check). */
    "CREATE TABLE step (t_start_ns INTEGER NOT NULL, t_end_ns INTEGER NOT NULL, step INTEGER, source TEXT,"
    " pid INTEGER, rank INTEGER, data_wait_ns INTEGER, batch_size INTEGER, samples INTEGER,"
    " compile_ns INTEGER, shape TEXT);"
    /* Version 2: the FLOPs of the one step the Python hook counted per process (FlopCounterMode);
     * dtype_flops is JSON {"bfloat16": n, ...}, counted_ns that step's wall time. */
    "CREATE TABLE step_flops (step INTEGER, pid INTEGER, rank INTEGER, flops INTEGER NOT NULL, dtype_flops TEXT,"
    " batch_size INTEGER, counted_ns INTEGER, source TEXT);"
    /* the Python hook's stack samples of each training thread (schema 2) */
    "CREATE TABLE py_frame (id INTEGER PRIMARY KEY, file TEXT, line INTEGER, func TEXT);"
    "CREATE TABLE py_sample (t_ns INTEGER NOT NULL, pid INTEGER NOT NULL, tid INTEGER NOT NULL,"
    " activity INTEGER NOT NULL, frame INTEGER);"
    "CREATE INDEX py_sample_t ON py_sample(t_ns);" THREAD_SCHEMA "CREATE INDEX cpu_sample_t ON cpu_sample(t_ns);"
    "CREATE INDEX proc_sample_t ON proc_sample(t_ns);"
    "CREATE INDEX event_t ON event(t_ns);";

enum stmt_id {
  S_BEGIN,
  S_COMMIT,
  S_GPU_FAST,
  S_GPU_SLOW,
  S_GPU_PROC,
  S_HOST,
  S_CPU,
  S_PROC,
  S_DISK,
  S_EVENT,
  S_STEP,
  S_ENV,
  S_META,
  S_COUNT
};

struct gw_store {
  sqlite3 *db;
  char *path;
  int readonly;
  int in_txn;
  int64_t txn_started_mono_ns;
  sqlite3_stmt *stmt[S_COUNT];
  char damage[512]; /* the first damage a reader met, "" none */
  /* prepared at the first thread row: a recording of schema 1 opened for
   * writing gets the tables then */
  sqlite3_stmt *thread_info_insert, *thread_sample_insert, *thread_sample_batch_insert;
};

/* CREATE TABLE or INSERT text for one metric table. */
static int metric_table_sql(enum gw_metric_table table, int insert, char *buf, size_t cap) {
  size_t len = 0;
  const char *name = table == GW_TABLE_FAST ? "gpu_sample" : "gpu_health";
  int rc = 0;
  buf[0] = '\0';
  rc |= gw_str_append(buf, cap, &len, insert ? "INSERT INTO " : "CREATE TABLE ");
  rc |= gw_str_append(buf, cap, &len, name);
  rc |= gw_str_append(buf, cap, &len, insert ? " (t_ns, gpu" : " (t_ns INTEGER NOT NULL, gpu INTEGER NOT NULL");
  int ncols = 2;
  for (int m = 0; m < GW_GPU_NMETRICS; m++) {
    if (gw_gpu_metric_info[m].table != table)
      continue;
    rc |= gw_str_append(buf, cap, &len, ", ");
    rc |= gw_str_append(buf, cap, &len, gw_gpu_metric_info[m].id);
    if (!insert)
      rc |= gw_str_append(buf, cap, &len, gw_gpu_metric_info[m].is_integer ? " INTEGER" : " REAL");
    ncols++;
  }
  rc |= gw_str_append(buf, cap, &len, ")");
  if (insert) {
    rc |= gw_str_append(buf, cap, &len, " VALUES (?");
    for (int i = 1; i < ncols; i++)
      rc |= gw_str_append(buf, cap, &len, ", ?");
    rc |= gw_str_append(buf, cap, &len, ")");
  } else {
    rc |= gw_str_append(buf, cap, &len, "; CREATE INDEX ");
    rc |= gw_str_append(buf, cap, &len, name);
    rc |= gw_str_append(buf, cap, &len, "_gpu_t ON ");
    rc |= gw_str_append(buf, cap, &len, name);
    rc |= gw_str_append(buf, cap, &len, "(gpu, t_ns);");
  }
  return rc;
}

static gw_status fail_db(struct gw_store *st, struct gw_err *err, const char *what) {
  gw_err_set(err, "%s: %s: %s", st->path, what, st->db ? sqlite3_errmsg(st->db) : "cannot open");
  return GW_EIO;
}

static gw_status exec(struct gw_store *st, const char *sql, struct gw_err *err) {
  char *msg = NULL;
  if (sqlite3_exec(st->db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    gw_err_set(err, "%s: %s", st->path, msg ? msg : "SQL error");
    sqlite3_free(msg);
    return GW_EIO;
  }
  return GW_OK;
}

/* The statement of id, prepared at its first use: an import or a short
 * recording writes a few of the tables, and preparing every insert at
 * create took much of a small import's time. NULL when SQLite refuses it
 * (sqlite3_errmsg says why). */
static sqlite3_stmt *stmt_of(struct gw_store *st, enum stmt_id id) {
  if (st->stmt[id])
    return st->stmt[id];
  char metric_sql[4096];
  const char *sql[S_COUNT] = {
      [S_BEGIN] = "BEGIN",
      [S_COMMIT] = "COMMIT",
      [S_GPU_FAST] = metric_sql,
      [S_GPU_SLOW] = metric_sql,
      [S_GPU_PROC] = "INSERT INTO gpu_proc VALUES (?,?,?,?,?,?)",
      [S_HOST] = "INSERT INTO host_sample VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
      [S_CPU] = "INSERT INTO cpu_sample VALUES (?,?,?,?,?,?,?)",
      [S_PROC] = "INSERT INTO proc_sample VALUES (?,?,?,?,?,?,?,?,?,?,?,?)",
      [S_DISK] = "INSERT INTO disk_sample VALUES (?,?,?,?,?,?,?,?,?)",
      [S_EVENT] = "INSERT INTO event VALUES (?,?,?,?,?,?)",
      [S_STEP] = "INSERT INTO step (t_start_ns, t_end_ns, step, source) VALUES (?,?,?,?)",
      [S_ENV] = "INSERT OR REPLACE INTO env VALUES (?,?)",
      [S_META] = "INSERT OR REPLACE INTO meta VALUES (?,?)",
  };
  if ((id == S_GPU_FAST || id == S_GPU_SLOW) &&
      metric_table_sql(id == S_GPU_FAST ? GW_TABLE_FAST : GW_TABLE_SLOW, 1, metric_sql, sizeof metric_sql))
    return NULL; /* cannot happen: the statement fits (the write tests cover every metric) */
  if (sqlite3_prepare_v3(st->db, sql[id], -1, SQLITE_PREPARE_PERSISTENT, &st->stmt[id], NULL) != SQLITE_OK) {
    sqlite3_finalize(st->stmt[id]);
    st->stmt[id] = NULL;
  }
  return st->stmt[id];
}

/* Every statement now: a read-write open of an existing recording fails
 * at once when one of its tables is missing or damaged. */
static gw_status prepare_all(struct gw_store *st, struct gw_err *err) {
  for (int i = 0; i < S_COUNT; i++)
    if (!stmt_of(st, (enum stmt_id)i))
      return fail_db(st, err, "prepare");
  return GW_OK;
}

static struct gw_store *store_new(const char *path) {
  struct gw_store *st = gw_xcalloc(1, sizeof *st);
  st->path = gw_xstrdup(path);
  return st;
}

static gw_status set_pragmas(struct gw_store *st, struct gw_err *err) {
  /* WAL + NORMAL: a crash of the process (gpuwhy or the target) keeps every
   * committed transaction; only a power loss could drop the last ones. */
  sqlite3_busy_timeout(st->db, 2000);
  return exec(st, "PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;", err);
}

/* Every table of a new recording, its version and application id, in one transaction. */
static gw_status create_schema(struct gw_store *st, struct gw_err *err) {
  gw_status rc;
  char table_sql[8192];
  if ((rc = set_pragmas(st, err)))
    return rc;
  if ((rc = exec(st, "BEGIN", err)) || (rc = exec(st, SCHEMA_FIXED, err)))
    return rc;
  for (int t = GW_TABLE_FAST; t <= GW_TABLE_SLOW; t++) {
    if (metric_table_sql((enum gw_metric_table)t, 0, table_sql, sizeof table_sql)) {
      gw_err_set(err, "internal: metric table statement too long");
      return GW_ERR;
    }
    if ((rc = exec(st, table_sql, err)))
      return rc;
  }
  /* The tracer's tables exist in every recording, empty when not traced. */
  if ((rc = gw_store_trace_create_tables(st->db, err)))
    return rc;
  char pragma[128];
  snprintf(pragma, sizeof pragma, "PRAGMA user_version=%d; PRAGMA application_id=%d;", GW_STORE_SCHEMA_VERSION,
           GW_STORE_APPLICATION_ID);
  if ((rc = exec(st, pragma, err)) || (rc = exec(st, "COMMIT", err)))
    return rc;
  return GW_OK;
}

/* An empty recording's bytes, made once per process: a recording made in
 * memory starts as a copy of them. Running the CREATE statements took most
 * of a small import's time (each one parses and rewrites the schema). */
static struct {
  pthread_once_t once;
  unsigned char *bytes;
  sqlite3_int64 size;
} empty_image = {PTHREAD_ONCE_INIT, NULL, 0};

static void make_empty_image(void) {
  struct gw_store *st = store_new(":memory:");
  struct gw_err err;
  if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) == SQLITE_OK &&
      create_schema(st, &err) == GW_OK) {
    sqlite3_int64 n = 0;
    unsigned char *image = sqlite3_serialize(st->db, "main", &n, 0);
    if (image && n > 0) {
      empty_image.bytes = gw_xcalloc(1, (size_t)n);
      memcpy(empty_image.bytes, image, (size_t)n);
      empty_image.size = n;
    }
    sqlite3_free(image);
  }
  gw_store_close(st);
}

/* The schema of a new recording into st: copied from the empty image for
 * a store in memory, else created. */
static gw_status new_schema(struct gw_store *st, int in_memory, struct gw_err *err) {
  if (!in_memory)
    return create_schema(st, err);
  pthread_once(&empty_image.once, make_empty_image);
  if (!empty_image.bytes)
    return create_schema(st, err);
  unsigned char *copy = sqlite3_malloc64((sqlite3_uint64)empty_image.size);
  if (!copy) {
    gw_err_set(err, "out of memory for a recording in memory");
    return GW_ERR;
  }
  memcpy(copy, empty_image.bytes, (size_t)empty_image.size);
  if (sqlite3_deserialize(st->db, "main", copy, empty_image.size, empty_image.size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK)
    return fail_db(st, err, "cannot make a recording in memory");
  return GW_OK;
}

/* A new recording file written as the empty image's bytes (an SQLite file
 * is its pages; the image is one), before SQLite opens it: no CREATE
 * statement parsed or run. 0 when written; -1 when it could not be (the
 * path is then left as it was: absent), and the CREATE statements run. */
static int write_empty_file(const char *path) {
  pthread_once(&empty_image.once, make_empty_image);
  if (!empty_image.bytes)
    return -1;
  int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
  if (fd < 0)
    return -1;
  size_t done = 0, size = (size_t)empty_image.size;
  while (done < size) {
    ssize_t n = write(fd, empty_image.bytes + done, size - done);
    if (n <= 0)
      break;
    done += (size_t)n;
  }
  if (close(fd) != 0 || done < size) {
    unlink(path);
    return -1;
  }
  return 0;
}

gw_status gw_store_create(struct gw_store **out, const char *path, struct gw_err *err) {
  *out = NULL;
  struct gw_store *st = store_new(path);
  gw_status rc;
  int in_memory = strcmp(path, ":memory:") == 0;
  /* Replace an old file and its WAL side files so no stale pages mix in. */
  if (!in_memory)
    gw_store_remove_files(path);
  int written = !in_memory && write_empty_file(path) == 0;
  if (sqlite3_open_v2(path, &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL) != SQLITE_OK) {
    rc = fail_db(st, err, "cannot create recording");
    goto fail;
  }
  /* the insert statements are prepared at their first row (stmt_of) */
  if ((rc = written ? set_pragmas(st, err) : new_schema(st, in_memory, err)))
    goto fail;
  *out = st;
  return GW_OK;
fail:
  gw_store_close(st);
  return rc;
}

static int pragma_int(sqlite3 *db, const char *sql, int *out) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return -1;
  int rc = sqlite3_step(s) == SQLITE_ROW ? 0 : -1;
  if (!rc)
    *out = sqlite3_column_int(s, 0);
  sqlite3_finalize(s);
  return rc;
}

/* 1 when path + suffix exists (a live or crashed writer's -wal, a hot -journal). */
static int side_file_exists(const char *path, const char *suffix) {
  char side[8192];
  return snprintf(side, sizeof side, "%s%s", path, suffix) < (int)sizeof side && access(side, F_OK) == 0;
}

/* A read-only open writes nothing: a file: URI with mode=ro, and immutable=1
 * when no -wal or -journal lies beside it (no writer is at work and none
 * died mid-transaction), so SQLite makes no -shm/-wal and needs no write
 * access to the folder. With a -wal there, its pages are part of the
 * recording (a run still being written, or one cut by kill -9): opened as a
 * plain reader to see them. The path is %-escaped as RFC 3986 asks. */
static int uri_for(const char *path, int immutable, char *out, size_t cap) {
  size_t n = 0;
  int w = snprintf(out, cap, "file:");
  if (w < 0 || (size_t)w >= cap)
    return -1;
  n = (size_t)w;
  for (const unsigned char *p = (const unsigned char *)path; *p; p++) {
    int plain =
        (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || strchr("/-_.~", *p) != NULL;
    w = plain ? snprintf(out + n, cap - n, "%c", *p) : snprintf(out + n, cap - n, "%%%02X", *p);
    if (w < 0 || (size_t)w >= cap - n)
      return -1;
    n += (size_t)w;
  }
  w = snprintf(out + n, cap - n, "?mode=ro%s", immutable ? "&immutable=1" : "");
  return w < 0 || (size_t)w >= cap - n ? -1 : 0;
}

/* quick_check reads every page once: 2.9 MB (the largest fixture) in under
 * 10 ms. Above this size the loaders' own checks (every step's status,
 * every numeric column's type) stand alone, so a large report does not read
 * its file twice. */
#define QUICK_CHECK_MAX_BYTES (512LL * 1024 * 1024)

static gw_status quick_check(struct gw_store *st, struct gw_err *err) {
  sqlite3_stmt *s = NULL;
  gw_status rc = GW_OK;
  if (sqlite3_prepare_v2(st->db, "PRAGMA quick_check(1)", -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: damaged recording: %s", st->path, sqlite3_errmsg(st->db));
    return GW_EINPUT;
  }
  int step = sqlite3_step(s);
  const unsigned char *res = step == SQLITE_ROW ? sqlite3_column_text(s, 0) : NULL;
  if (!res || strcmp((const char *)res, "ok") != 0) {
    gw_err_set(err, "%s: damaged recording (SQLite's quick_check: %s)", st->path,
               res ? (const char *)res : sqlite3_errmsg(st->db));
    rc = GW_EINPUT;
  }
  sqlite3_finalize(s);
  return rc;
}

/* 1 when the first bytes of a database image carry gpuwhy's application id
 * (offset 68, big-endian), so a damaged image is still known as ours. */
static int image_header_is_ours(const unsigned char *image, size_t size) {
  if (size < 72 || memcmp(image, "SQLite format 3", 16) != 0)
    return 0;
  uint32_t id = (uint32_t)image[68] << 24 | (uint32_t)image[69] << 16 | (uint32_t)image[70] << 8 | image[71];
  return id == GW_STORE_APPLICATION_ID;
}

/* The tables a recording holds by its schema version, so that a table lost
 * to damage is not read as a file from an older gpuwhy (the loaders pass
 * over a missing optional table). Every version wrote the samplers' tables.
 * The tracer's were added within version 1 and are made together (at first
 * without trace_device and pm_sample). Version 2 makes every table of a new
 * recording; nccl_log comes only with NCCL's log. */
static const char *const CORE_TABLES[] = {"run",         "meta",        "env",      "event",       "gpu",
                                          "gpu_sample",  "gpu_health",  "gpu_proc", "host_sample", "cpu_sample",
                                          "proc_sample", "disk_sample", "step"};
static const char *const TRACER_V1_TABLES[] = {
    "api",  "graph_launch",  "kernel",     "launch_count", "marker",         "memcpy",        "memory",      "memset",
    "sync", "trace_dropped", "trace_name", "trace_note",   "trace_overhead", "trace_process", "trace_window"};
static const char *const V2_TABLES[] = {"trace_device",  "pm_sample", "step_flops", "thread_info",
                                        "thread_sample", "py_frame",  "py_sample"};
#define NTABLES(list) (sizeof(list) / sizeof((list)[0]))

/* The first table of list (n names) that db lacks, NULL when none. */
static const char *first_missing(sqlite3 *db, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!gw_store_table_exists(db, list[i]))
      return list[i];
  return NULL;
}

static int any_present(sqlite3 *db, const char *const *list, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (gw_store_table_exists(db, list[i]))
      return 1;
  return 0;
}

/* Refuses a recording that lacks a table every gpuwhy of its version wrote. */
static gw_status check_tables(struct gw_store *st, int version, struct gw_err *err) {
  const char *missing = first_missing(st->db, CORE_TABLES, NTABLES(CORE_TABLES));
  int tracer_required = version >= 2 || any_present(st->db, TRACER_V1_TABLES, NTABLES(TRACER_V1_TABLES));
  if (!missing && tracer_required)
    missing = first_missing(st->db, TRACER_V1_TABLES, NTABLES(TRACER_V1_TABLES));
  if (!missing && version >= 2)
    missing = first_missing(st->db, V2_TABLES, NTABLES(V2_TABLES));
  if (!missing)
    return GW_OK;
  gw_err_set(err, "%s: damaged recording: table %s is missing (every recording of schema version %d has it)", st->path,
             missing, version);
  return GW_EINPUT;
}

/* The checks of every open, once SQLite holds the database: gpuwhy's
 * application id, a schema version this build reads, quick_check (read-only
 * opens of up to QUICK_CHECK_MAX_BYTES), a readable run table, the tables
 * of its version (check_tables).
 * header_is_ours: whether the raw header names gpuwhy, for the message when
 * SQLite cannot even read the header. */
static gw_status check_opened(struct gw_store *st, int readonly, long long size_bytes, int header_is_ours,
                              struct gw_err *err) {
  const char *path = st->path;
  int app_id = 0, version = 0;
  gw_status rc;
  if (pragma_int(st->db, "PRAGMA application_id", &app_id) || pragma_int(st->db, "PRAGMA user_version", &version)) {
    /* a header that names gpuwhy makes this a damaged recording, not another file */
    if (header_is_ours)
      gw_err_set(err, "%s: damaged recording (%s)", path, sqlite3_errmsg(st->db));
    else
      gw_err_set(err, "%s: not a gpuwhy recording (not a readable SQLite database: %s)", path, sqlite3_errmsg(st->db));
    return GW_EINPUT;
  }
  if (app_id != GW_STORE_APPLICATION_ID) {
    gw_err_set(err, "%s: not a gpuwhy recording (SQLite application_id is 0x%x, expected 0x%x)", path, (unsigned)app_id,
               (unsigned)GW_STORE_APPLICATION_ID);
    return GW_EINPUT;
  }
  if (version > GW_STORE_SCHEMA_VERSION) {
    gw_err_set(err,
               "%s: recording schema version %d is newer than this gpuwhy reads (versions 1 to %d): it was made "
               "by a newer gpuwhy; read it with that one",
               path, version, GW_STORE_SCHEMA_VERSION);
    return GW_EINPUT;
  }
  if (version < 1) {
    gw_err_set(err, "%s: recording schema version %d is not one gpuwhy ever wrote (1 to %d): damaged header", path,
               version, GW_STORE_SCHEMA_VERSION);
    return GW_EINPUT;
  }
  if (readonly && size_bytes <= QUICK_CHECK_MAX_BYTES && (rc = quick_check(st, err)))
    return rc;
  /* Reading a table proves the file is not truncated garbage behind a valid header. */
  if (exec(st, "SELECT count(*) FROM run", err))
    return GW_EINPUT;
  if ((rc = check_tables(st, version, err)))
    return rc;
  if (!readonly && (rc = prepare_all(st, err)))
    return rc;
  return GW_OK;
}

/* Every file opened by gw_store_open, counted for tests/unit/test_one_open.c
 * (each output reads its recording through one open). */
static unsigned long store_file_opens;

unsigned long gw_store_file_opens(void) {
  return __atomic_load_n(&store_file_opens, __ATOMIC_RELAXED);
}

gw_status gw_store_open(struct gw_store **out, const char *path, int readonly, struct gw_err *err) {
  *out = NULL;
  __atomic_add_fetch(&store_file_opens, 1, __ATOMIC_RELAXED);
  struct stat sb;
  if (stat(path, &sb) != 0) {
    gw_err_set(err, "%s: no such file", path);
    return GW_EINPUT;
  }
  /* a pipe, a folder or a device is refused before anything reads it (a pipe without a writer would hang) */
  if (!S_ISREG(sb.st_mode)) {
    gw_err_set(err, "%s: not a regular file, so not a gpuwhy recording", path);
    return GW_EINPUT;
  }
  struct gw_store *st = store_new(path);
  st->readonly = readonly;
  gw_status rc = GW_EINPUT;
  /* A read-only store is used by one thread at a time, so SQLite's per-call
     connection mutex is left out: it was 6% of a day-long report's time. */
  int flags = readonly ? SQLITE_OPEN_READONLY | SQLITE_OPEN_URI | SQLITE_OPEN_NOMUTEX : SQLITE_OPEN_READWRITE;
  char uri[8192 * 3 + 64];
  const char *name = path;
  if (readonly) {
    int immutable = !side_file_exists(path, "-wal") && !side_file_exists(path, "-journal");
    if (uri_for(path, immutable, uri, sizeof uri) != 0) {
      gw_err_set(err, "%s: path too long", path);
      goto fail;
    }
    name = uri;
  }
  if (sqlite3_open_v2(name, &st->db, flags, NULL) != SQLITE_OK) {
    rc = fail_db(st, err, "cannot open recording");
    goto fail;
  }
  sqlite3_busy_timeout(st->db, 2000);
  /* the raw header is read only when SQLite cannot read it */
  int app_id = 0, version = 0;
  int header_unreadable =
      pragma_int(st->db, "PRAGMA application_id", &app_id) || pragma_int(st->db, "PRAGMA user_version", &version);
  if ((rc = check_opened(st, readonly, (long long)sb.st_size, header_unreadable && gw_store_file_is_recording(path),
                         err)))
    goto fail;
  *out = st;
  return GW_OK;
fail:
  gw_store_close(st);
  return rc;
}

gw_status gw_store_open_buffer(struct gw_store **out, const void *data, size_t size, const char *name,
                               struct gw_err *err) {
  *out = NULL;
  struct gw_store *st = store_new(name ? name : "(buffer)");
  st->readonly = 1;
  gw_status rc = GW_EINPUT;
  if (sqlite3_open_v2(":memory:", &st->db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
    rc = fail_db(st, err, "cannot open an in-memory database");
    goto fail;
  }
  /* SQLite owns the copy (FREEONCLOSE) and frees it also when deserialize fails */
  unsigned char *image = sqlite3_malloc64(size ? size : 1);
  if (!image) {
    gw_err_set(err, "%s: out of memory for a %zu-byte recording", st->path, size);
    rc = GW_ERR;
    goto fail;
  }
  memcpy(image, data, size);
  /* WAL mode in the header (read and write versions 2): an image has no -wal
   * beside it, so it is read as a file without one is (immutable): as a
   * rollback-journal database. memdb cannot open WAL. */
  if (size >= 20 && image[18] == 2 && image[19] == 2)
    image[18] = image[19] = 1;
  int header_is_ours = image_header_is_ours(image, size);
  if (sqlite3_deserialize(st->db, "main", image, (sqlite3_int64)size, (sqlite3_int64)size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_READONLY) != SQLITE_OK) {
    rc = fail_db(st, err, "cannot read the recording's bytes");
    goto fail;
  }
  if ((rc = check_opened(st, 1, (long long)size, header_is_ours, err)))
    goto fail;
  *out = st;
  return GW_OK;
fail:
  gw_store_close(st);
  return rc;
}

void gw_store_close(struct gw_store *st) {
  if (!st)
    return;
  if (st->in_txn) {
    struct gw_err ignored;
    (void)exec(st, "COMMIT", &ignored);
  }
  for (int i = 0; i < S_COUNT; i++)
    sqlite3_finalize(st->stmt[i]);
  sqlite3_finalize(st->thread_info_insert);
  sqlite3_finalize(st->thread_sample_insert);
  sqlite3_finalize(st->thread_sample_batch_insert);
  if (st->db)
    sqlite3_close(st->db);
  free(st->path);
  free(st);
}

sqlite3 *gw_store_db(struct gw_store *st) {
  return st->db;
}

long gw_store_count_rows(const char *path, const char *sql, const char *text1) {
  struct gw_store *st = NULL;
  struct gw_err err = {{0}};
  if (gw_store_open(&st, path, 1, &err) != GW_OK)
    return -1;
  sqlite3_stmt *s = NULL;
  long n = -1;
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) == SQLITE_OK &&
      (!text1 || sqlite3_bind_text(s, 1, text1, -1, SQLITE_STATIC) == SQLITE_OK) && sqlite3_step(s) == SQLITE_ROW)
    n = (long)sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  gw_store_close(st);
  return n;
}

long gw_store_count_runs(const char *path) {
  return gw_store_count_rows(path, "SELECT count(*) FROM run", NULL);
}

long gw_store_count_events(const char *path, const char *kind) {
  return gw_store_count_rows(path, "SELECT count(*) FROM event WHERE kind = ?1", kind);
}

const char *gw_store_path(const struct gw_store *st) {
  return st->path;
}
/* The table a statement reads: the word after its first FROM. */
static void statement_table(sqlite3_stmt *s, char *out, size_t cap) {
  const char *sql = s ? sqlite3_sql(s) : NULL;
  const char *from = sql ? strstr(sql, " FROM ") : NULL;
  out[0] = '\0';
  if (!from)
    return;
  from += 6;
  size_t n = strcspn(from, " ,;)");
  if (n >= cap)
    n = cap - 1;
  memcpy(out, from, n);
  out[n] = '\0';
}

void gw_store_note_damage(struct gw_store *st, sqlite3_stmt *s, const char *what) {
  if (!st || st->damage[0])
    return;
  char table[64];
  statement_table(s, table, sizeof table);
  snprintf(st->damage, sizeof st->damage, "table %s: %s", table[0] ? table : "?", what);
}

int gw_store_step(struct gw_store *st, sqlite3_stmt *s) {
  int rc = sqlite3_step(s);
  if (rc == SQLITE_ROW)
    return 1;
  if (rc != SQLITE_DONE)
    gw_store_note_damage(st, s, st && st->db ? sqlite3_errmsg(st->db) : sqlite3_errstr(rc));
  return 0;
}

double gw_store_col_double(struct gw_store *st, sqlite3_stmt *s, int i) {
  switch (sqlite3_column_type(s, i)) {
  case SQLITE_NULL:
    return NAN;
  case SQLITE_INTEGER:
  case SQLITE_FLOAT:
    return sqlite3_column_double(s, i);
  default: {
    /* text where a number belongs: SQLite would read 'high' as 0 */
    char what[160];
    snprintf(what, sizeof what, "a text value in the numeric column %s", sqlite3_column_name(s, i));
    gw_store_note_damage(st, s, what);
    return NAN;
  }
  }
}

const char *gw_store_damage(const struct gw_store *st) {
  return st && st->damage[0] ? st->damage : NULL;
}

const char *gw_store_errmsg(struct gw_store *st) {
  return st->db ? sqlite3_errmsg(st->db) : "no database";
}

/* Steps a kept statement once, to its end, and makes it ready for the next use. */
static gw_status run_stmt(sqlite3_stmt *s) {
  int rc = sqlite3_step(s);
  sqlite3_reset(s);
  sqlite3_clear_bindings(s);
  return rc == SQLITE_DONE ? GW_OK : GW_EIO;
}

/* Every write happens inside a transaction that commit_if_due closes. */
static gw_status ensure_txn(struct gw_store *st) {
  /* After some errors (disk full) SQLite rolls the transaction back by
   * itself; begin a new one rather than write row by row from then on. */
  if (st->in_txn && sqlite3_get_autocommit(st->db))
    st->in_txn = 0;
  if (st->in_txn)
    return GW_OK;
  sqlite3_stmt *s = stmt_of(st, S_BEGIN);
  if (!s || run_stmt(s) != GW_OK)
    return GW_EIO;
  st->in_txn = 1;
  st->txn_started_mono_ns = gw_now_monotonic_ns();
  return GW_OK;
}

gw_status gw_store_commit(struct gw_store *st) {
  if (!st->in_txn)
    return GW_OK;
  sqlite3_stmt *s = stmt_of(st, S_COMMIT);
  if (!s)
    return GW_EIO;
  if (run_stmt(s) != GW_OK) {
    if (sqlite3_get_autocommit(st->db))
      st->in_txn = 0; /* rolled back: its rows are gone, the next write starts afresh */
    return GW_EIO;
  }
  st->in_txn = 0;
  return GW_OK;
}

gw_status gw_store_commit_if_due(struct gw_store *st, int64_t max_age_ns) {
  if (st->in_txn && gw_now_monotonic_ns() - st->txn_started_mono_ns >= max_age_ns)
    return gw_store_commit(st);
  return GW_OK;
}

/* An INTEGER column fed from a double (metric values): NULL when the value
 * is not a number or lies outside what int64 holds, where the conversion
 * would be undefined. Every source checks its own range first (the importers
 * say which line and field); this is the last guard for any caller. */
static void bind_opt_integral_double(sqlite3_stmt *s, int i, int valid, double v) {
  int in_range = valid && !isnan(v) && v > -9.2e18 && v < 9.2e18;
  gw_store_bind_opt_int(s, i, in_range, in_range ? (int64_t)v : 0);
}

/* The kept statement of a row write, inside the open transaction (begun if
 * needed): NULL with *rc set when either fails. */
static sqlite3_stmt *row_stmt(struct gw_store *st, enum stmt_id id, gw_status *rc) {
  if ((*rc = ensure_txn(st)) != GW_OK)
    return NULL;
  sqlite3_stmt *s = stmt_of(st, id);
  if (!s)
    *rc = GW_EIO;
  return s;
}

/* A statement run once (the run and gpu rows), inside the open transaction
 * (begun if needed): NULL with *rc set when either fails; run_once runs and
 * frees it. */
static sqlite3_stmt *once_stmt(struct gw_store *st, const char *sql, gw_status *rc) {
  sqlite3_stmt *s = NULL;
  if ((*rc = ensure_txn(st)) != GW_OK)
    return NULL;
  if (sqlite3_prepare_v2(st->db, sql, -1, &s, NULL) != SQLITE_OK) {
    sqlite3_finalize(s);
    *rc = GW_EIO;
    return NULL;
  }
  return s;
}

static gw_status run_once(sqlite3_stmt *s) {
  gw_status rc = sqlite3_step(s) == SQLITE_DONE ? GW_OK : GW_EIO;
  sqlite3_finalize(s);
  return rc;
}

gw_status gw_store_put_run(struct gw_store *st, const struct gw_run_info *r) {
  const char *sql = "INSERT OR REPLACE INTO run (id, gpuwhy_version, source, started_ns, command, cwd, target_pid,"
                    " hostname, kernel, cpu_model, logical_cpus, physical_cores, mem_total_bytes, driver_version,"
                    " nvml_version, cuda_driver_version, interval_ms, gpu_note)"
                    " VALUES (1,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)";
  gw_status rc;
  sqlite3_stmt *s = once_stmt(st, sql, &rc);
  if (!s)
    return rc;
  int i = 1;
  gw_store_bind_text(s, i++, GW_VERSION);
  gw_store_bind_text(s, i++, r->source ? r->source : "record");
  sqlite3_bind_int64(s, i++, r->started_ns);
  gw_store_bind_text(s, i++, r->command_json);
  gw_store_bind_text(s, i++, r->cwd);
  gw_store_bind_opt_int(s, i++, r->target_pid > 0, r->target_pid);
  gw_store_bind_text(s, i++, r->hostname);
  gw_store_bind_text(s, i++, r->kernel);
  gw_store_bind_text(s, i++, r->cpu_model);
  gw_store_bind_opt_int(s, i++, r->logical_cpus > 0, r->logical_cpus);
  gw_store_bind_opt_int(s, i++, r->physical_cores > 0, r->physical_cores);
  gw_store_bind_opt_int(s, i++, r->mem_total_bytes > 0, r->mem_total_bytes);
  gw_store_bind_text(s, i++, r->driver_version);
  gw_store_bind_text(s, i++, r->nvml_version);
  gw_store_bind_opt_int(s, i++, r->cuda_driver_version > 0, r->cuda_driver_version);
  gw_store_bind_opt_int(s, i++, r->interval_ms > 0, r->interval_ms);
  gw_store_bind_text(s, i++, r->gpu_note);
  return run_once(s);
}

gw_status gw_store_finish_run(struct gw_store *st, int64_t ended_ns, int exit_status) {
  gw_status rc;
  sqlite3_stmt *s = once_stmt(st, "UPDATE run SET ended_ns = ?, exit_status = ? WHERE id = 1", &rc);
  if (!s)
    return rc;
  sqlite3_bind_int64(s, 1, ended_ns);
  sqlite3_bind_int(s, 2, exit_status);
  return run_once(s);
}

static gw_status put_pair(struct gw_store *st, enum stmt_id id, const char *a, const char *b) {
  gw_status rc;
  sqlite3_stmt *s = row_stmt(st, id, &rc);
  if (!s)
    return rc;
  gw_store_bind_text(s, 1, a);
  gw_store_bind_text(s, 2, b);
  return run_stmt(s);
}

gw_status gw_store_put_env(struct gw_store *st, const char *name, const char *value) {
  return put_pair(st, S_ENV, name, value);
}
gw_status gw_store_put_meta(struct gw_store *st, const char *key, const char *value) {
  return put_pair(st, S_META, key, value);
}

gw_status gw_store_put_gpu_info(struct gw_store *st, const struct gw_gpu_info *g) {
  gw_status rc;
  sqlite3_stmt *s = once_stmt(st, "INSERT OR REPLACE INTO gpu VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", &rc);
  if (!s)
    return rc;
  int i = 1;
  sqlite3_bind_int(s, i++, (int)g->index);
  gw_store_bind_text(s, i++, g->uuid[0] ? g->uuid : NULL);
  gw_store_bind_text(s, i++, g->name[0] ? g->name : NULL);
  gw_store_bind_text(s, i++, g->pci_bus_id[0] ? g->pci_bus_id : NULL);
  gw_store_bind_opt_int(s, i++, g->mem_total_bytes > 0, (int64_t)g->mem_total_bytes);
  gw_store_bind_opt_int(s, i++, g->power_default_limit_mw > 0, g->power_default_limit_mw);
  gw_store_bind_opt_int(s, i++, g->power_min_limit_mw > 0, g->power_min_limit_mw);
  gw_store_bind_opt_int(s, i++, g->power_max_limit_mw > 0, g->power_max_limit_mw);
  gw_store_bind_opt_int(s, i++, g->sm_clock_max_mhz > 0, g->sm_clock_max_mhz);
  gw_store_bind_opt_int(s, i++, g->mem_clock_max_mhz > 0, g->mem_clock_max_mhz);
  gw_store_bind_opt_int(s, i++, g->pcie_gen_max > 0, g->pcie_gen_max);
  gw_store_bind_opt_int(s, i++, g->pcie_width_max > 0, g->pcie_width_max);
  gw_store_bind_opt_int(s, i++, g->temp_slowdown_c > 0, g->temp_slowdown_c);
  gw_store_bind_opt_int(s, i++, g->temp_shutdown_c > 0, g->temp_shutdown_c);
  gw_store_bind_opt_int(s, i++, g->windowed_supported >= 0, g->windowed_supported);
  gw_store_bind_opt_int(s, i++, g->mig_enabled >= 0, g->mig_enabled);
  gw_store_bind_opt_int(s, i++, g->persistence_mode >= 0, g->persistence_mode);
  gw_store_bind_opt_int(s, i++, g->compute_mode >= 0, g->compute_mode);
  gw_store_bind_opt_int(s, i++, g->ecc_enabled >= 0, g->ecc_enabled);
  gw_store_bind_opt_int(s, i++, g->supported_clock_reasons > 0, (int64_t)g->supported_clock_reasons);
  return run_once(s);
}

static gw_status put_metric_row(struct gw_store *st, const struct gw_gpu_sample *g, enum gw_metric_table table) {
  sqlite3_stmt *s = stmt_of(st, table == GW_TABLE_FAST ? S_GPU_FAST : S_GPU_SLOW);
  if (!s)
    return GW_EIO;
  int i = 1;
  sqlite3_bind_int64(s, i++, g->t_ns);
  sqlite3_bind_int(s, i++, (int)g->gpu);
  for (int m = 0; m < GW_GPU_NMETRICS; m++) {
    if (gw_gpu_metric_info[m].table != table)
      continue;
    int valid = gw_gpu_valid(g, (enum gw_gpu_metric)m);
    if (gw_gpu_metric_info[m].is_integer)
      bind_opt_integral_double(s, i++, valid, g->values[m]);
    else
      gw_store_bind_opt_double(s, i++, valid, g->values[m]);
  }
  return run_stmt(s);
}

gw_status gw_store_put_gpu_sample(struct gw_store *st, const struct gw_gpu_sample *g, unsigned what) {
  gw_status rc = ensure_txn(st);
  if (!rc && (what & (1u << GW_TABLE_FAST)))
    rc = put_metric_row(st, g, GW_TABLE_FAST);
  if (!rc && (what & (1u << GW_TABLE_SLOW)))
    rc = put_metric_row(st, g, GW_TABLE_SLOW);
  return rc;
}

gw_status gw_store_put_gpu_proc(struct gw_store *st, const struct gw_gpu_proc *p) {
  gw_status rc;
  sqlite3_stmt *s = row_stmt(st, S_GPU_PROC, &rc);
  if (!s)
    return rc;
  sqlite3_bind_int64(s, 1, p->t_ns);
  sqlite3_bind_int(s, 2, (int)p->gpu);
  sqlite3_bind_int(s, 3, p->pid);
  gw_store_bind_opt_int(s, 4, p->used_mem_bytes >= 0, p->used_mem_bytes);
  gw_store_bind_opt_double(s, 5, p->sm_pct >= 0, p->sm_pct);
  gw_store_bind_text(s, 6, p->comm[0] ? p->comm : NULL);
  return run_stmt(s);
}

static gw_status put_cpu(struct gw_store *st, int64_t t_ns, const struct gw_cpu_sample *c) {
  sqlite3_stmt *s = stmt_of(st, S_CPU);
  if (!s)
    return GW_EIO;
  sqlite3_bind_int64(s, 1, t_ns);
  sqlite3_bind_int(s, 2, c->core);
  sqlite3_bind_double(s, 3, c->busy_pct);
  sqlite3_bind_double(s, 4, c->user_pct);
  sqlite3_bind_double(s, 5, c->system_pct);
  sqlite3_bind_double(s, 6, c->iowait_pct);
  sqlite3_bind_double(s, 7, c->steal_pct);
  return run_stmt(s);
}

gw_status gw_store_put_host_sample(struct gw_store *st, const struct gw_host_sample *h) {
  gw_status rc;
  sqlite3_stmt *s = row_stmt(st, S_HOST, &rc);
  if (!s)
    return rc;
  int cpu = (h->valid >> GW_H_CPU) & 1, mem = (h->valid >> GW_H_MEM) & 1;
  int psi_cpu = (h->valid >> GW_H_PSI_CPU) & 1, psi_mem = (h->valid >> GW_H_PSI_MEM) & 1;
  int psi_io = (h->valid >> GW_H_PSI_IO) & 1, power = (h->valid >> GW_H_POWER) & 1;
  int load = (h->valid >> GW_H_LOAD) & 1;
  int i = 1;
  sqlite3_bind_int64(s, i++, h->t_ns);
  gw_store_bind_opt_double(s, i++, cpu, h->total.busy_pct);
  gw_store_bind_opt_double(s, i++, cpu, h->total.user_pct);
  gw_store_bind_opt_double(s, i++, cpu, h->total.system_pct);
  gw_store_bind_opt_double(s, i++, cpu, h->total.iowait_pct);
  gw_store_bind_opt_double(s, i++, cpu, h->total.steal_pct);
  sqlite3_bind_int(s, i++, h->ncores);
  gw_store_bind_opt_int(s, i++, mem, h->mem_total_bytes);
  gw_store_bind_opt_int(s, i++, mem, h->mem_available_bytes);
  gw_store_bind_opt_int(s, i++, mem, h->swap_total_bytes);
  gw_store_bind_opt_int(s, i++, mem, h->swap_free_bytes);
  gw_store_bind_opt_double(s, i++, psi_cpu, h->psi_cpu_some_pct);
  gw_store_bind_opt_double(s, i++, psi_mem, h->psi_mem_some_pct);
  gw_store_bind_opt_double(s, i++, psi_mem, h->psi_mem_full_pct);
  gw_store_bind_opt_double(s, i++, psi_io, h->psi_io_some_pct);
  gw_store_bind_opt_double(s, i++, psi_io, h->psi_io_full_pct);
  gw_store_bind_opt_double(s, i++, load, h->loadavg_1m);
  gw_store_bind_opt_int(s, i++, load, h->procs_running);
  gw_store_bind_opt_int(s, i++, power, h->on_battery);
  gw_store_bind_text(s, i++, h->governor[0] ? h->governor : NULL);
  if ((rc = run_stmt(s)))
    return rc;
  if (cpu)
    for (int c = 0; c < h->ncores && !rc; c++)
      rc = put_cpu(st, h->t_ns, &h->cores[c]);
  for (int p = 0; p < h->nprocs && !rc; p++) {
    const struct gw_proc_sample *ps = &h->procs[p];
    char state[2] = {ps->state, 0};
    if (!(s = stmt_of(st, S_PROC)))
      return GW_EIO;
    sqlite3_bind_int64(s, 1, h->t_ns);
    sqlite3_bind_int(s, 2, ps->pid);
    sqlite3_bind_int(s, 3, ps->ppid);
    sqlite3_bind_int(s, 4, ps->role);
    gw_store_bind_text(s, 5, ps->comm);
    gw_store_bind_text(s, 6, ps->state ? state : NULL);
    gw_store_bind_opt_double(s, 7, ps->cpu_pct >= 0, ps->cpu_pct);
    sqlite3_bind_int(s, 8, ps->threads);
    gw_store_bind_opt_int(s, 9, ps->threads_running >= 0, ps->threads_running);
    gw_store_bind_opt_int(s, 10, ps->rss_bytes >= 0, ps->rss_bytes);
    gw_store_bind_opt_double(s, 11, ps->main_thread_cpu_pct >= 0, ps->main_thread_cpu_pct);
    gw_store_bind_opt_double(s, 12, ps->launch_threads_cpu_pct >= 0, ps->launch_threads_cpu_pct);
    rc = run_stmt(s);
  }
  if (cpu)
    for (int d = 0; d < h->ndisks && !rc; d++) {
      const struct gw_disk_sample *ds = &h->disks[d];
      if (!(s = stmt_of(st, S_DISK)))
        return GW_EIO;
      sqlite3_bind_int64(s, 1, h->t_ns);
      gw_store_bind_text(s, 2, ds->name);
      sqlite3_bind_double(s, 3, ds->util_pct);
      sqlite3_bind_double(s, 4, ds->await_ms);
      sqlite3_bind_double(s, 5, ds->r_per_s);
      sqlite3_bind_double(s, 6, ds->w_per_s);
      sqlite3_bind_double(s, 7, ds->read_bps);
      sqlite3_bind_double(s, 8, ds->write_bps);
      sqlite3_bind_double(s, 9, ds->aqu_sz);
      rc = run_stmt(s);
    }
  return rc;
}

gw_status gw_store_put_event(struct gw_store *st, const struct gw_event *ev) {
  gw_status rc;
  sqlite3_stmt *s = row_stmt(st, S_EVENT, &rc);
  if (!s)
    return rc;
  sqlite3_bind_int64(s, 1, ev->t_ns);
  gw_store_bind_text(s, 2, ev->kind ? ev->kind : "note");
  gw_store_bind_opt_int(s, 3, ev->gpu >= 0, ev->gpu);
  sqlite3_bind_int64(s, 4, ev->code);
  gw_store_bind_opt_int(s, 5, ev->pid > 0, ev->pid);
  gw_store_bind_text(s, 6, ev->message);
  return run_stmt(s);
}

gw_status gw_store_put_step(struct gw_store *st, int64_t start_ns, int64_t end_ns, int64_t step, const char *source) {
  gw_status rc;
  sqlite3_stmt *s = row_stmt(st, S_STEP, &rc);
  if (!s)
    return rc;
  sqlite3_bind_int64(s, 1, start_ns);
  sqlite3_bind_int64(s, 2, end_ns);
  sqlite3_bind_int64(s, 3, step);
  gw_store_bind_text(s, 4, source);
  return run_stmt(s);
}

/* Both read SQLite's parsed schema (sqlite3_table_column_metadata) rather
 * than preparing a query on sqlite_master or pragma_table_info: the loader
 * asks some 25 times per report, and each prepare parses and compiles SQL.
 * Only tables of the main database count (a view is not a table); names
 * compare without case, as SQL itself resolves them. */
int gw_store_table_exists(sqlite3 *db, const char *name) {
  return name && sqlite3_table_column_metadata(db, "main", name, NULL, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK;
}

int gw_store_column_exists(sqlite3 *db, const char *table, const char *column) {
  return table && column &&
         sqlite3_table_column_metadata(db, "main", table, column, NULL, NULL, NULL, NULL, NULL) == SQLITE_OK;
}

int gw_store_file_is_recording(const char *path) {
  /* SQLite's 16-byte magic first, so that a trace is never opened as a
   * database (sqlite.org/fileformat.html). The application id is then read
   * from the header (offset 68, big-endian), so a damaged recording is still
   * known as one and its damage reported; else through SQLite: in WAL mode a
   * recording still being written may hold its header page only in the -wal
   * file. Only regular files: a pipe would block the read. */
  struct stat sb;
  if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
    return 0;
  unsigned char head[72];
  FILE *f = fopen(path, "rb");
  if (!f)
    return 0;
  size_t got = fread(head, 1, sizeof head, f);
  fclose(f);
  if (got < 16 || memcmp(head, "SQLite format 3", 16) != 0)
    return 0;
  if (got == sizeof head) {
    uint32_t id = (uint32_t)head[68] << 24 | (uint32_t)head[69] << 16 | (uint32_t)head[70] << 8 | head[71];
    if (id == GW_STORE_APPLICATION_ID)
      return 1;
  }
  char uri[8192 * 3 + 64];
  if (uri_for(path, !side_file_exists(path, "-wal") && !side_file_exists(path, "-journal"), uri, sizeof uri) != 0)
    return 0;
  sqlite3 *db = NULL;
  int app_id = 0, is_recording = 0;
  if (sqlite3_open_v2(uri, &db, SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL) == SQLITE_OK) {
    sqlite3_busy_timeout(db, 2000);
    is_recording = pragma_int(db, "PRAGMA application_id", &app_id) == 0 && app_id == GW_STORE_APPLICATION_ID;
  }
  sqlite3_close(db);
  return is_recording;
}

gw_status gw_store_check_replace(const char *path, int force, struct gw_err *err) {
  struct stat sb;
  if (lstat(path, &sb) != 0)
    return GW_OK; /* nothing there (or nothing we can see: creating it will say why) */
  if (!S_ISREG(sb.st_mode)) {
    gw_err_set(err, _("%s exists and is not a regular file: not replaced"), path);
    return GW_EINPUT;
  }
  if (force || sb.st_size == 0 || gw_store_file_is_recording(path))
    return GW_OK;
  gw_err_set(err, _("%s exists and is not a gpuwhy recording: not replaced (give --force to replace it)"), path);
  return GW_EINPUT;
}

void gw_store_remove_files(const char *path) {
  static const char *const side_suffix[] = {"-wal", "-shm", "-journal"};
  unlink(path);
  char side[8192];
  /* A path too long for its side-file names has no side files we made. */
  for (size_t i = 0; i < sizeof side_suffix / sizeof side_suffix[0]; i++)
    if (snprintf(side, sizeof side, "%s%s", path, side_suffix[i]) < (int)sizeof side)
      unlink(side);
}

static gw_status prepare_thread_writes(struct gw_store *st) {
  if (st->thread_sample_insert)
    return GW_OK;
  if (sqlite3_exec(st->db, THREAD_SCHEMA, NULL, NULL, NULL) != SQLITE_OK ||
      sqlite3_prepare_v3(st->db,
                         "INSERT OR REPLACE INTO thread_info (tid, pid, role, comm, first_t_ns) VALUES (?,?,?,?,?)", -1,
                         SQLITE_PREPARE_PERSISTENT, &st->thread_info_insert, NULL) != SQLITE_OK ||
      sqlite3_prepare_v3(st->db, "INSERT INTO thread_sample VALUES (?,?,?,?,?,?)", -1, SQLITE_PREPARE_PERSISTENT,
                         &st->thread_sample_insert, NULL) != SQLITE_OK) {
    sqlite3_finalize(st->thread_info_insert);
    st->thread_info_insert = NULL;
    return GW_EIO;
  }
  return GW_OK;
}

gw_status gw_store_put_thread_info(struct gw_store *st, int tid, int pid, int role, const char *comm,
                                   int64_t first_t_ns) {
  gw_status rc = ensure_txn(st);
  if (rc || (rc = prepare_thread_writes(st)))
    return rc;
  sqlite3_stmt *s = st->thread_info_insert;
  sqlite3_bind_int(s, 1, tid);
  sqlite3_bind_int(s, 2, pid);
  sqlite3_bind_int(s, 3, role);
  gw_store_bind_text(s, 4, comm);
  sqlite3_bind_int64(s, 5, first_t_ns);
  return run_stmt(s);
}

/* Bind one sample's six values from parameter first on. */
static void bind_thread_sample(sqlite3_stmt *s, int first, const struct gw_store_thread_sample *r) {
  sqlite3_bind_int64(s, first, r->t_ns);
  sqlite3_bind_int(s, first + 1, r->tid);
  sqlite3_bind_int(s, first + 2, r->state);
  sqlite3_bind_int(s, first + 3, r->wait);
  gw_store_bind_opt_int(s, first + 4, r->syscall_nr >= 0, r->syscall_nr);
  gw_store_bind_opt_int(s, first + 5, r->cpu_ns >= 0, r->cpu_ns);
}

gw_status gw_store_put_thread_sample(struct gw_store *st, int64_t t_ns, int tid, int state, int wait, int syscall_nr,
                                     int64_t cpu_ns) {
  struct gw_store_thread_sample row = {t_ns, cpu_ns, tid, state, wait, syscall_nr};
  return gw_store_put_thread_samples(st, &row, 1);
}

/* Rows per statement: 32 x 6 parameters, well under SQLite's 999 of old
 * builds; past about 32 rows a statement the per-row cost stops falling. */
#define THREAD_SAMPLE_BATCH 32

gw_status gw_store_put_thread_samples(struct gw_store *st, const struct gw_store_thread_sample *rows, size_t n) {
  gw_status rc = ensure_txn(st);
  if (rc || (rc = prepare_thread_writes(st)))
    return rc;
  if (n >= THREAD_SAMPLE_BATCH && !st->thread_sample_batch_insert) {
    char sql[64 + THREAD_SAMPLE_BATCH * 16];
    size_t len = (size_t)snprintf(sql, sizeof sql, "INSERT INTO thread_sample VALUES (?,?,?,?,?,?)");
    for (int i = 1; i < THREAD_SAMPLE_BATCH; i++)
      len += (size_t)snprintf(sql + len, sizeof sql - len, ",(?,?,?,?,?,?)");
    if (sqlite3_prepare_v3(st->db, sql, -1, SQLITE_PREPARE_PERSISTENT, &st->thread_sample_batch_insert, NULL) !=
        SQLITE_OK)
      return GW_EIO;
  }
  size_t i = 0;
  for (; n - i >= THREAD_SAMPLE_BATCH; i += THREAD_SAMPLE_BATCH) {
    sqlite3_stmt *s = st->thread_sample_batch_insert;
    for (int k = 0; k < THREAD_SAMPLE_BATCH; k++)
      bind_thread_sample(s, 1 + 6 * k, &rows[i + (size_t)k]);
    int step = sqlite3_step(s);
    sqlite3_reset(s); /* every parameter is bound again next time: no clearing */
    if (step != SQLITE_DONE)
      return GW_EIO;
  }
  for (; i < n; i++) {
    sqlite3_stmt *s = st->thread_sample_insert;
    bind_thread_sample(s, 1, &rows[i]);
    int step = sqlite3_step(s);
    sqlite3_reset(s);
    if (step != SQLITE_DONE)
      return GW_EIO;
  }
  return GW_OK;
}
