/* The Python hook's step spool (py-PID.steps, written by
 * tracer/python/gpuwhy_hook/_gpuwhy_steps.py inside the user's program) as the
 * recorder reads it: lib/record/line_spool.c cuts complete lines from a file
 * that grows while it is read, lib/record/pyhook_collect.c parses each line
 * into the step table or an event. The first input byte says where the file
 * is cut for the poll made while it is "still being written"; the rest is the
 * file. Promises checked: every stored step is ordered and non-negative, the
 * count the collector reports is the table's, DataLoader steps never sit
 * beside a process's optimizer steps, every event has a kind the hook writes (a note for a bad line). */
#include "fuzz_util.h"
#include "store/store_sql.h"
#include "record/pyhook_collect.h"
#include "store/store.h"

#include <sqlite3.h>

static struct gw_store *store;
static char spool_dir[600], spool_file[700];

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc;
  (void)argv;
  char db_path[600];
  fuzz_path(db_path, sizeof db_path, "hook.db");
  fuzz_path(spool_dir, sizeof spool_dir, "hook.db.py");
  snprintf(spool_file, sizeof spool_file, "%s/py-4242.steps", spool_dir);
  struct gw_err err = {{0}};
  if (gw_store_create(&store, db_path, &err) != GW_OK) {
    fprintf(stderr, "fuzz_pyhook_spool: %s\n", err.msg);
    exit(1);
  }
  return 0;
}

static void check_event(void *ctx, const struct gw_event *ev) {
  (void)ctx;
  /* the kind is the collector's own string for a kind the hook writes, never the line's text */
  int known = ev->kind && (gw_pyhook_event_kind(ev->kind) == ev->kind || strcmp(ev->kind, "note") == 0);
  FUZZ_CHECK(known);
  FUZZ_CHECK(fuzz_terminated(ev->message, sizeof ev->message));
  FUZZ_CHECK(ev->pid == 4242);
}

static int64_t count(const char *sql) {
  sqlite3_stmt *s = NULL;
  int64_t n = -1;
  if (sqlite3_prepare_v2(gw_store_db(store), sql, -1, &s, NULL) == SQLITE_OK && sqlite3_step(s) == SQLITE_ROW)
    n = sqlite3_column_int64(s, 0);
  sqlite3_finalize(s);
  FUZZ_CHECK(n >= 0);
  return n;
}

static void append(const uint8_t *data, size_t size) {
  FILE *f = fopen(spool_file, "ab");
  FUZZ_CHECK(f != NULL);
  FUZZ_CHECK(fwrite(data, 1, size, f) == size || size == 0);
  fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size < 1)
    return 0;
  size_t cut = (size - 1) * data[0] / 255;
  const uint8_t *file = data + 1;
  size_t file_bytes = size - 1;
  struct gw_event_sink sink = {check_event, NULL};
  struct gw_pyhook_collect *pc = NULL;
  struct gw_err err = {{0}};
  FUZZ_CHECK(sqlite3_exec(gw_store_db(store), "DELETE FROM step; DELETE FROM py_frame; DELETE FROM py_sample", NULL,
                          NULL, NULL) == SQLITE_OK);
  FUZZ_CHECK(gw_pyhook_collect_open(&pc, spool_dir, spool_dir, store, &err) == GW_OK);
  /* Part of the file, a poll while the program runs, the rest, the last poll. */
  append(file, cut);
  gw_pyhook_collect_poll(pc, &sink);
  append(file + cut, file_bytes - cut);
  gw_pyhook_collect_finish(pc, &sink);

  size_t lines = 1;
  for (size_t i = 0; i < file_bytes; i++)
    lines += file[i] == '\n';
  uint64_t steps = gw_pyhook_collect_steps(pc);
  FUZZ_CHECK(steps == (uint64_t)count("SELECT count(*) FROM step"));
  FUZZ_CHECK(steps + gw_pyhook_collect_bad_lines(pc) <= lines);
  FUZZ_CHECK(count("SELECT count(*) FROM step WHERE t_end_ns < t_start_ns OR t_start_ns <= 0 OR data_wait_ns < 0"
                   " OR samples < 0 OR batch_size <= 0 OR rank < 0 OR pid IS NOT 4242") == 0);
  FUZZ_CHECK(count("SELECT count(*) FROM step WHERE source NOT IN ('python_hook', 'python_hook_loader')") == 0);
  FUZZ_CHECK(count("SELECT count(*) FROM step WHERE source = 'python_hook'") == 0 ||
             count("SELECT count(*) FROM step WHERE source = 'python_hook_loader'") == 0);
  /* stack samples: as many as the collector says, each of a known activity and a frame it defined */
  FUZZ_CHECK(gw_pyhook_collect_py_samples(pc) == (uint64_t)count("SELECT count(*) FROM py_sample"));
  FUZZ_CHECK(count("SELECT count(*) FROM py_sample WHERE activity < 0 OR activity > 12 OR pid IS NOT 4242 OR tid <= 0"
                   " OR (frame IS NOT NULL AND frame NOT IN (SELECT id FROM py_frame))") == 0);
  gw_pyhook_collect_close(pc); /* removes the file and the folder */
  return 0;
}
