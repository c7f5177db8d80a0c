/* Hostile rows in a well-formed recording: the input is SQL run against a
 * small real recording (NULLs, text where numbers belong, huge or negative
 * values, missing tables, duplicated GPUs ...), then everything gpuwhy does
 * with a recording runs on the result. Byte-level mutation of a SQLite
 * file rarely gets past the page checks; this reaches the analysis.
 *
 * Input: an optional first line "-- NAME" picking the base recording (one
 * of the scenario fixtures below, cut to its first seconds, with kernels,
 * copies, markers and steps added), then SQL, run as fuzz_sql.h allows.
 * The SQL runs on an in-memory copy and the result is read from memory
 * (fuzz_memory.h) and rendered in every format; one input in 64 also goes
 * through a file. A recording read before is not read again (fuzz_seen.h). */
#include "fuzz_memory.h"
#include "store/store_sql.h"
#include "fuzz_recording.h"
#include "fuzz_seen.h"
#include "fuzz_sql.h"
#include "store/store_trace.h"

#ifndef GW_FUZZ_SOURCE_DIR
#define GW_FUZZ_SOURCE_DIR "."
#endif

static const char *const base_names[] = {"healthy",       "hardware_xid",    "input_slow_read",
                                         "schedule_eval", "launch_tiny_ops", "power_cap"};
#define NBASES (sizeof base_names / sizeof *base_names)

static struct {
  unsigned char *bytes;
  size_t size;
} bases[NBASES];

/* Keep the first seconds, add tracer rows and steps, make the file small. */
static const char SHRINK_SQL[] =
    "CREATE TEMP TABLE w AS SELECT min(t_ns) AS t0, min(t_ns) + 8000000000 AS t1 FROM gpu_sample;"
    "DELETE FROM gpu_sample WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM gpu_health WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM gpu_proc WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM host_sample WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM cpu_sample WHERE t_ns > (SELECT t1 FROM w) OR core > 3;"
    "DELETE FROM proc_sample WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM disk_sample WHERE t_ns > (SELECT t1 FROM w);"
    "DELETE FROM event WHERE t_ns > (SELECT t1 FROM w) AND rowid NOT IN (SELECT rowid FROM event LIMIT 8);"
    "UPDATE run SET ended_ns = (SELECT t1 FROM w);"
    "INSERT INTO step (t_start_ns, t_end_ns, step, source) SELECT t0 + 500000000 * k, t0 + 500000000 * k + 450000000, "
    "k, 'fuzz' FROM w,"
    " (WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 14) SELECT k FROM c);"
    "INSERT INTO trace_process VALUES (4242, (SELECT t0 FROM w), 130001, 'full', 0, 0, '1.0');"
    "INSERT INTO trace_name VALUES (1, 4242, 'ampere_sgemm_128x64_nn'), (2, 4242, 'ncclKernel_AllReduce'),"
    " (3, 4242, 'forward');"
    "INSERT INTO kernel (pid, device, context, stream, start_ns, end_ns, name_id, grid_x, grid_y, grid_z, block_x,"
    " block_y, block_z, correlation, nccl) SELECT 4242, 0, 1, 7, t0 + 40000000 * k, t0 + 40000000 * k + 30000000,"
    " 1 + (k % 5 = 0), 80, 1, 1, 256, 1, 1, k, k % 5 = 0 FROM w,"
    " (WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 150) SELECT k FROM c);"
    "INSERT INTO memcpy (pid, device, context, stream, start_ns, end_ns, bytes, copy_kind, src_kind, dst_kind, async,"
    " correlation) SELECT 4242, 0, 1, 7, t0 + 500000000 * k, t0 + 500000000 * k + 4000000, 1 << 24, 1, 1, 3, 0,"
    " 10000 + k FROM w, (WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 14) SELECT k FROM c);"
    "INSERT INTO marker SELECT 4242, 4242, t0 + 500000000 * k, t0 + 500000000 * k + 400000000, 3, 0, 0 FROM w,"
    " (WITH RECURSIVE c(k) AS (SELECT 0 UNION ALL SELECT k + 1 FROM c WHERE k < 14) SELECT k FROM c);"
    "INSERT INTO trace_window SELECT 4242, t0, t1, 'full', 255 FROM w;"
    "DROP TABLE w;";

static unsigned char *read_whole(const char *path, size_t *size) {
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  fseek(f, 0, SEEK_END);
  long n = ftell(f);
  fseek(f, 0, SEEK_SET);
  unsigned char *buf = malloc((size_t)n);
  if (!buf || fread(buf, 1, (size_t)n, f) != (size_t)n)
    abort();
  fclose(f);
  *size = (size_t)n;
  return buf;
}

static void make_base(size_t i, const char *source_dir) {
  char src[1024], dst[600];
  snprintf(src, sizeof src, "%s/tests/fixtures/scenarios/%s.db", source_dir, base_names[i]);
  fuzz_path(dst, sizeof dst, "base.db");
  fuzz_remove_db(dst);
  sqlite3 *from = NULL, *to = NULL;
  if (sqlite3_open_v2(src, &from, SQLITE_OPEN_READONLY, NULL) != SQLITE_OK || sqlite3_open(dst, &to) != SQLITE_OK) {
    fprintf(stderr, "fuzz_recording_sql: cannot open %s (set GW_SOURCE_DIR to the source tree)\n", src);
    exit(1);
  }
  sqlite3_backup *b = sqlite3_backup_init(to, "main", from, "main");
  if (!b || sqlite3_backup_step(b, -1) != SQLITE_DONE)
    abort();
  sqlite3_backup_finish(b);
  sqlite3_close(from);
  struct gw_err err = {{0}};
  char *msg = NULL;
  if (gw_store_trace_create_tables(to, &err) != GW_OK ||
      sqlite3_exec(to, "PRAGMA journal_mode=DELETE", NULL, NULL, &msg) != SQLITE_OK ||
      sqlite3_exec(to, SHRINK_SQL, NULL, NULL, &msg) != SQLITE_OK ||
      sqlite3_exec(to, "PRAGMA page_size=1024; VACUUM", NULL, NULL, &msg) != SQLITE_OK) {
    fprintf(stderr, "fuzz_recording_sql: preparing %s: %s %s\n", base_names[i], err.msg, msg ? msg : "");
    exit(1);
  }
  sqlite3_close(to);
  bases[i].bytes = read_whole(dst, &bases[i].size);
  fuzz_remove_db(dst);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  fuzz_sqlite_setup();
  const char *dir = getenv("GW_SOURCE_DIR");
  for (size_t i = 0; i < NBASES; i++)
    make_base(i, dir && *dir ? dir : GW_FUZZ_SOURCE_DIR);
  return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[512];
  if (!path[0])
    fuzz_path(path, sizeof path, "recording.db");
  char *sql = fuzz_cstring(data, size);
  size_t base = 0;
  if (strncmp(sql, "-- ", 3) == 0)
    for (size_t i = 0; i < NBASES; i++) {
      size_t n = strlen(base_names[i]);
      if (strncmp(sql + 3, base_names[i], n) == 0 && (sql[3 + n] == '\n' || sql[3 + n] == '\0'))
        base = i;
    }
  if (fuzz_sql_refused(sql)) {
    free(sql);
    return -1; /* not added to the corpus */
  }
  /* the SQL runs on an in-memory copy of the base; the result is read as bytes */
  sqlite3 *db = fuzz_sql_memory_db(bases[base].bytes, bases[base].size);
  fuzz_sql_exec(db, sql);
  free(sql);
  size_t n = 0;
  unsigned char *image = fuzz_sql_image(db, &n);
  sqlite3_close(db);
  /* the reader of a file for the one input in 64 that goes through one (below), else -1 */
  int reader = fuzz_pick(data, size, 64) == 63 && image ? (int)fuzz_pick(data, size, FUZZ_NREADERS) : -1;
  /* A recording already read (and by this input's reader of a file) is the
   * same work again (fuzz_seen.h). That leaves time to render every new
   * one in every format rather than one format in three. */
  if (fuzz_seen(image, n, (uint64_t)(reader + 1))) {
    sqlite3_free(image);
    return 0;
  }
  char verdict[64], msg[1024];
  int rc = fuzz_read_image(image ? image : (const unsigned char *)"", n, FUZZ_RENDER_EVERY, verdict, sizeof verdict,
                           msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || (rc == 3 && msg[0] != '\0'));
  /* One input in 64 also goes through a file to the readers that take a
   * path (Perfetto, the compare summary, a read-write open): they read the
   * same model, and a file per input would cost 20 times the rest. */
  if (reader >= 0) {
    fuzz_remove_db(path);
    fuzz_write_file(path, image, n);
    fuzz_read_recording(path, (unsigned)reader, 0);
  }
  sqlite3_free(image);
  return 0;
}
