/* The replay GPU backend, a testing aid: GPUWHY_GPU_BACKEND=replay:FILE makes
 * record (and watch, serve, check) see the GPUs of the recording FILE: their
 * static facts and driver versions, and on each tick the next gpu_sample row
 * of each GPU, with the gpu_health row in force at that row's time when the
 * health tiers are asked for. Rows keep their values (and NULLs) and their
 * spacing: a row is stamped at the first replayed tick's time plus its
 * offset in the source, so a late tick on a loaded machine does not stretch
 * the series. Record at the source's interval (or a longer one): a shorter
 * one would stamp rows ahead of the clock. When a GPU's rows run out it reads
 * as lost (no event), and the recording carries on with the host. Not replayed: events
 * (Xid, clock-reason changes), GPU process lists, the kernel trace. */
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/gpu_backend.h"
#include "store_sql.h"
#include "store/store.h"

#define REPLAY_MAX_GPUS 64

struct replay_rows {
  struct gw_gpu_sample *row;
  size_t n, next;
};

struct replay {
  unsigned ngpus;
  struct gw_driver_info driver;
  struct gw_gpu_info info[REPLAY_MAX_GPUS];
  struct replay_rows fast[REPLAY_MAX_GPUS], slow[REPLAY_MAX_GPUS];
  int64_t src_t[REPLAY_MAX_GPUS]; /* source time of the last row given */
  int64_t src0_ns;                /* the source's first row, all GPUs */
  int64_t origin_ns;              /* the tick the first row was given at; 0 before */
};

static void text_col(sqlite3_stmt *s, int i, char *dst, size_t cap) {
  const unsigned char *t = sqlite3_column_text(s, i);
  gw_strlcpy(dst, t ? (const char *)t : "", cap);
}

static int64_t int_col(sqlite3_stmt *s, int i, int64_t unknown) {
  return sqlite3_column_type(s, i) == SQLITE_NULL ? unknown : sqlite3_column_int64(s, i);
}

static gw_status read_facts(struct replay *r, sqlite3 *db, const char *path, struct gw_err *err) {
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, "SELECT driver_version, nvml_version, cuda_driver_version FROM run", -1, &s, NULL) ==
          SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    text_col(s, 0, r->driver.driver_version, sizeof r->driver.driver_version);
    text_col(s, 1, r->driver.nvml_version, sizeof r->driver.nvml_version);
    r->driver.cuda_driver_version = (int)int_col(s, 2, 0);
  }
  sqlite3_finalize(s);
  if (sqlite3_prepare_v2(db,
                         "SELECT gpu, uuid, name, pci_bus_id, mem_total_bytes, power_default_limit_mw, "
                         "power_min_limit_mw, power_max_limit_mw, sm_clock_max_mhz, mem_clock_max_mhz, pcie_gen_max, "
                         "pcie_width_max, temp_slowdown_c, temp_shutdown_c, gpm_supported, mig_enabled, "
                         "persistence_mode, compute_mode, ecc_enabled, supported_clock_reasons FROM gpu ORDER BY gpu",
                         -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, "replay %s: no gpu table: %s", path, sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t g = sqlite3_column_int64(s, 0);
    if (g < 0 || g >= REPLAY_MAX_GPUS || (unsigned)g != r->ngpus) {
      sqlite3_finalize(s);
      gw_err_set(err, "replay %s: gpu.gpu %lld out of order (expected %u)", path, (long long)g, r->ngpus);
      return GW_EINPUT;
    }
    struct gw_gpu_info *i = &r->info[r->ngpus++];
    i->index = (unsigned)g;
    text_col(s, 1, i->uuid, sizeof i->uuid);
    text_col(s, 2, i->name, sizeof i->name);
    text_col(s, 3, i->pci_bus_id, sizeof i->pci_bus_id);
    i->mem_total_bytes = (uint64_t)int_col(s, 4, 0);
    i->power_default_limit_mw = (unsigned)int_col(s, 5, 0);
    i->power_min_limit_mw = (unsigned)int_col(s, 6, 0);
    i->power_max_limit_mw = (unsigned)int_col(s, 7, 0);
    i->sm_clock_max_mhz = (unsigned)int_col(s, 8, 0);
    i->mem_clock_max_mhz = (unsigned)int_col(s, 9, 0);
    i->pcie_gen_max = (unsigned)int_col(s, 10, 0);
    i->pcie_width_max = (unsigned)int_col(s, 11, 0);
    i->temp_slowdown_c = (int)int_col(s, 12, -1);
    i->temp_shutdown_c = (int)int_col(s, 13, -1);
    i->windowed_supported = (int)int_col(s, 14, -1);
    i->mig_enabled = (int)int_col(s, 15, -1);
    i->persistence_mode = (int)int_col(s, 16, -1);
    i->compute_mode = (int)int_col(s, 17, -1);
    i->ecc_enabled = (int)int_col(s, 18, -1);
    i->supported_clock_reasons = (uint64_t)int_col(s, 19, 0);
  }
  sqlite3_finalize(s);
  if (r->ngpus == 0) {
    gw_err_set(err, "replay %s: the recording has no GPU", path);
    return GW_ENOTSUP;
  }
  return GW_OK;
}

/* The rows of one metric table (gpu_sample or gpu_health), by GPU and time. */
static gw_status read_rows(struct replay *r, sqlite3 *db, const char *path, enum gw_metric_table table,
                           struct replay_rows *rows, struct gw_err *err) {
  const char *name = table == GW_TABLE_FAST ? "gpu_sample" : "gpu_health";
  char sql[4096];
  int len = snprintf(sql, sizeof sql, "SELECT t_ns, gpu");
  int metric[GW_GPU_NMETRICS], ncols = 0;
  for (int m = 0; m < GW_GPU_NMETRICS; m++)
    if (gw_gpu_metric_info[m].table == table && gw_store_column_exists(db, name, gw_gpu_metric_info[m].id)) {
      len += snprintf(sql + len, sizeof sql - (size_t)len, ", %s", gw_gpu_metric_info[m].id);
      metric[ncols++] = m;
    }
  snprintf(sql + len, sizeof sql - (size_t)len, " FROM %s ORDER BY gpu, t_ns", name);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK) {
    gw_err_set(err, "replay %s: cannot read %s: %s", path, name, sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  size_t cap[REPLAY_MAX_GPUS] = {0};
  while (sqlite3_step(s) == SQLITE_ROW) {
    int64_t g = sqlite3_column_int64(s, 1);
    if (g < 0 || g >= r->ngpus)
      continue; /* a GPU without static facts: not one the replay shows */
    struct replay_rows *rr = &rows[g];
    if (rr->n == cap[g]) {
      cap[g] = cap[g] ? 2 * cap[g] : 256;
      rr->row = gw_xrealloc(rr->row, cap[g] * sizeof *rr->row);
    }
    struct gw_gpu_sample *out = &rr->row[rr->n++];
    memset(out, 0, sizeof *out);
    out->t_ns = sqlite3_column_int64(s, 0);
    out->gpu = (unsigned)g;
    for (int c = 0; c < ncols; c++)
      if (sqlite3_column_type(s, c + 2) != SQLITE_NULL)
        gw_gpu_set(out, (enum gw_gpu_metric)metric[c], sqlite3_column_double(s, c + 2));
  }
  sqlite3_finalize(s);
  return GW_OK;
}

static void replay_close(void *state) {
  struct replay *r = state;
  if (!r)
    return;
  for (unsigned g = 0; g < REPLAY_MAX_GPUS; g++) {
    free(r->fast[g].row);
    free(r->slow[g].row);
  }
  free(r);
}

static gw_status replay_open(void **state, const char *path, struct gw_err *err) {
  *state = NULL;
  if (!path || !path[0]) {
    gw_err_set(err, "GPUWHY_GPU_BACKEND=replay:FILE needs the recording to replay");
    return GW_EINPUT;
  }
  struct gw_store *st = NULL;
  gw_status rc = gw_store_open(&st, path, 1, err);
  if (rc != GW_OK)
    return rc;
  struct replay *r = gw_xcalloc(1, sizeof *r);
  sqlite3 *db = gw_store_db(st);
  rc = read_facts(r, db, path, err);
  if (rc == GW_OK)
    rc = read_rows(r, db, path, GW_TABLE_FAST, r->fast, err);
  if (rc == GW_OK)
    rc = read_rows(r, db, path, GW_TABLE_SLOW, r->slow, err);
  gw_store_close(st);
  if (rc != GW_OK) {
    replay_close(r);
    return rc;
  }
  for (unsigned g = 0; g < r->ngpus; g++)
    if (r->fast[g].n && (!r->src0_ns || r->fast[g].row[0].t_ns < r->src0_ns))
      r->src0_ns = r->fast[g].row[0].t_ns;
  *state = r;
  return GW_OK;
}

static unsigned replay_count(const void *state) {
  return ((const struct replay *)state)->ngpus;
}

static void replay_driver(const void *state, struct gw_driver_info *out) {
  *out = ((const struct replay *)state)->driver;
}

static gw_status replay_identity(void *state, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err) {
  struct replay *r = state;
  if (gpu >= r->ngpus) {
    gw_err_set(err, "replay: no GPU %u", gpu);
    return GW_ERR;
  }
  *out = r->info[gpu];
  return GW_OK;
}

static gw_status replay_sample(void *state, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *out,
                               const struct gw_event_sink *events) {
  (void)events;
  struct replay *r = state;
  if (gpu >= r->ngpus)
    return GW_ELOST;
  out->t_ns = t_ns;
  if (what & GW_GPU_FAST) {
    struct replay_rows *f = &r->fast[gpu];
    if (f->next >= f->n)
      return GW_ELOST; /* the replay is over */
    const struct gw_gpu_sample *row = &f->row[f->next++];
    for (int m = 0; m < GW_GPU_NMETRICS; m++)
      if (gw_gpu_valid(row, (enum gw_gpu_metric)m))
        gw_gpu_set(out, (enum gw_gpu_metric)m, row->values[m]);
    r->src_t[gpu] = row->t_ns;
    if (!r->origin_ns)
      r->origin_ns = t_ns;
    out->t_ns = r->origin_ns + (row->t_ns - r->src0_ns);
  }
  if (what & (GW_GPU_SLOW | GW_GPU_RARE)) {
    /* the health row in force at the source time reached */
    struct replay_rows *h = &r->slow[gpu];
    while (h->next + 1 < h->n && h->row[h->next + 1].t_ns <= r->src_t[gpu])
      h->next++;
    if (h->next < h->n && h->row[h->next].t_ns <= r->src_t[gpu]) {
      const struct gw_gpu_sample *row = &h->row[h->next];
      for (int m = 0; m < GW_GPU_NMETRICS; m++)
        if (gw_gpu_valid(row, (enum gw_gpu_metric)m))
          gw_gpu_set(out, (enum gw_gpu_metric)m, row->values[m]);
    }
  }
  out->gpu = gpu;
  return GW_OK;
}

const struct gw_gpu_backend_ops gw_gpu_backend_replay = {
    "replay", replay_open, replay_close, replay_count, replay_driver, replay_identity, NULL, replay_sample, NULL, NULL,
};
