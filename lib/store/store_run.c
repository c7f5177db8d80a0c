#include "store/store_run.h"
#include "store_sql.h"

#include <math.h>
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

static void read_run(sqlite3 *db, struct gw_run_facts *f, gw_command_text_fn command_text) {
  sqlite3_stmt *s;
  if (sqlite3_prepare_v2(db, "SELECT * FROM run ORDER BY id LIMIT 1", -1, &s, NULL) != SQLITE_OK)
    return;
  if (sqlite3_step(s) == SQLITE_ROW) {
    for (int i = 0; i < sqlite3_column_count(s); i++) {
      const char *c = sqlite3_column_name(s, i);
      int is_null = sqlite3_column_type(s, i) == SQLITE_NULL;
      if (strcmp(c, "source") == 0)
        text_col(s, i, f->source, sizeof f->source);
      else if (strcmp(c, "command") == 0 && !is_null)
        command_text((const char *)sqlite3_column_text(s, i), f->command, sizeof f->command);
      else if (strcmp(c, "cwd") == 0)
        text_col(s, i, f->cwd, sizeof f->cwd);
      else if (strcmp(c, "hostname") == 0)
        text_col(s, i, f->hostname, sizeof f->hostname);
      else if (strcmp(c, "kernel") == 0)
        text_col(s, i, f->kernel, sizeof f->kernel);
      else if (strcmp(c, "cpu_model") == 0)
        text_col(s, i, f->cpu_model, sizeof f->cpu_model);
      else if (strcmp(c, "driver_version") == 0)
        text_col(s, i, f->driver_version, sizeof f->driver_version);
      else if (strcmp(c, "nvml_version") == 0)
        text_col(s, i, f->nvml_version, sizeof f->nvml_version);
      else if (strcmp(c, "gpu_note") == 0)
        text_col(s, i, f->gpu_note, sizeof f->gpu_note);
      else if (strcmp(c, "cuda_driver_version") == 0)
        f->cuda_driver_version = sqlite3_column_int(s, i);
      else if (strcmp(c, "logical_cpus") == 0)
        f->logical_cpus = sqlite3_column_int(s, i);
      else if (strcmp(c, "physical_cores") == 0)
        f->physical_cores = sqlite3_column_int(s, i);
      else if (strcmp(c, "interval_ms") == 0)
        f->interval_ms = sqlite3_column_int(s, i);
      else if (strcmp(c, "target_pid") == 0)
        f->target_pid = sqlite3_column_int(s, i);
      else if (strcmp(c, "mem_total_bytes") == 0)
        f->mem_total_bytes = num_col(s, i);
      else if (strcmp(c, "started_ns") == 0)
        f->started_ns = sqlite3_column_int64(s, i);
      else if (strcmp(c, "ended_ns") == 0)
        f->ended_ns = sqlite3_column_int64(s, i);
      else if (strcmp(c, "exit_status") == 0)
        f->exit_status = is_null ? -1 : sqlite3_column_int(s, i);
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
