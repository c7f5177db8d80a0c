#include "store/store_run.h"
#include "store_sql.h"

#include <math.h>
#include <stddef.h>
#include <sqlite3.h>
#include <string.h>

#include "store/store.h"

static void text_col(sqlite3_stmt *s, int i, char *dst, size_t cap) {
  const unsigned char *t = sqlite3_column_text(s, i);
  gw_strlcpy(dst, t ? (const char *)t : "", cap);
}

static double num_col(sqlite3_stmt *s, int i) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? NAN : sqlite3_column_double(s, i);
}

/* The run row's plain columns, read by name (a recording of any schema
 * version has some of them) into the gw_run_facts field of the same name. */
enum run_col_type { RUN_TEXT, RUN_INT, RUN_INT64, RUN_NUM };
#define RUN_COL(field, type)                                                                                           \
  { #field, type, offsetof(struct gw_run_facts, field), sizeof(((struct gw_run_facts *)0)->field) }
static const struct run_col {
  const char *name;
  enum run_col_type type;
  size_t offset, bytes;
} run_cols[] = {
    RUN_COL(source, RUN_TEXT),
    RUN_COL(cwd, RUN_TEXT),
    RUN_COL(hostname, RUN_TEXT),
    RUN_COL(kernel, RUN_TEXT),
    RUN_COL(cpu_model, RUN_TEXT),
    RUN_COL(driver_version, RUN_TEXT),
    RUN_COL(nvml_version, RUN_TEXT),
    RUN_COL(gpu_note, RUN_TEXT),
    RUN_COL(cuda_driver_version, RUN_INT),
    RUN_COL(logical_cpus, RUN_INT),
    RUN_COL(physical_cores, RUN_INT),
    RUN_COL(interval_ms, RUN_INT),
    RUN_COL(target_pid, RUN_INT),
    RUN_COL(mem_total_bytes, RUN_NUM),
    RUN_COL(started_ns, RUN_INT64),
    RUN_COL(ended_ns, RUN_INT64),
};

static void read_run_col(sqlite3_stmt *s, int i, const struct run_col *c, struct gw_run_facts *f) {
  void *field = (char *)f + c->offset;
  switch (c->type) {
  case RUN_TEXT:
    text_col(s, i, field, c->bytes);
    break;
  case RUN_INT:
    *(int *)field = sqlite3_column_int(s, i);
    break;
  case RUN_INT64:
    *(int64_t *)field = sqlite3_column_int64(s, i);
    break;
  case RUN_NUM:
    *(double *)field = num_col(s, i);
    break;
  }
}

static void read_run(sqlite3 *db, struct gw_run_facts *f, gw_command_text_fn command_text) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT * FROM run ORDER BY id LIMIT 1", -1, &s, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); i++) {
      const char *c = sqlite3_column_name(s, i);
      int is_null = sqlite3_column_type(s, i) == SQLITE_NULL;
      if (strcmp(c, "command") == 0) {
        if (!is_null)
          command_text((const char *)sqlite3_column_text(s, i), f->command, sizeof f->command);
        continue;
      }
      if (strcmp(c, "exit_status") == 0) {
        f->exit_status = is_null ? -1 : sqlite3_column_int(s, i);
        continue;
      }
      for (size_t k = 0; k < sizeof run_cols / sizeof run_cols[0]; k++)
        if (strcmp(c, run_cols[k].name) == 0) {
          read_run_col(s, i, &run_cols[k], f);
          break;
        }
    }
  }
  sqlite3_finalize(s);
}

static void read_gpus(sqlite3 *db, struct gw_run_facts *f) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db,
                         "SELECT gpu, uuid, name, pci_bus_id, mem_total_bytes, power_default_limit_mw,"
                         " sm_clock_max_mhz FROM gpu ORDER BY gpu",
                         -1, &s, NULL) != SQLITE_OK)
    return;
  while (f->ngpus < GW_FACTS_MAX_GPUS && sqlite3_step(s) == SQLITE_ROW) {
    struct gw_gpu_facts *g = &f->gpus[f->ngpus++];
    g->gpu = sqlite3_column_int(s, 0);
    text_col(s, 1, g->uuid, sizeof g->uuid);
    text_col(s, 2, g->name, sizeof g->name);
    text_col(s, 3, g->pci_bus_id, sizeof g->pci_bus_id);
    g->mem_total_bytes = num_col(s, 4);
    g->power_default_limit_mw = num_col(s, 5);
    g->sm_clock_max_mhz = num_col(s, 6);
  }
  sqlite3_finalize(s);
}

void gw_store_read_run_facts(struct gw_store *st, struct gw_run_facts *out, gw_command_text_fn command_text) {
  memset(out, 0, sizeof *out);
  out->exit_status = -1;
  out->mem_total_bytes = NAN;
  sqlite3 *db = gw_store_db(st);
  read_run(db, out, command_text);
  read_gpus(db, out);
}
