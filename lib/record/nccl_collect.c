#include "nccl_collect.h"
#include "line_spool.h"
#include "store/store_write.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/i18n.h"
#define MAX_LINES 100000    /* NCCL logs a few hundred lines per rank at start; a cap keeps a chatty run bounded */
#define MAX_LINE_BYTES 2048 /* longer lines are cut: transports fit in the first hundred bytes */

struct gw_nccl_collect {
  char dir[PATH_MAX];
  struct gw_store_nccl_log *writer;
  struct gw_line_spool spool;
  uint64_t lines, dropped;
  int64_t poll_t_ns; /* when the lines being moved were read */
};

gw_status gw_nccl_collect_open(struct gw_nccl_collect **out, const char *dir, struct gw_store *store,
                               struct gw_err *err) {
  *out = NULL;
  struct gw_nccl_collect *nc = gw_xcalloc(1, sizeof *nc);
  int made = gw_line_spool_make_dir(&nc->spool, nc->dir, sizeof nc->dir, dir, "nccl.", ".log", err);
  if (made > 0)
    gw_err_set(err, _("NCCL log folder path too long: %s"), dir);
  if (made) {
    free(nc);
    return GW_ERR;
  }
  gw_line_spool_clear(&nc->spool);
  gw_status rc = gw_store_nccl_log_open(&nc->writer, store, err);
  if (rc) {
    free(nc);
    return rc;
  }
  *out = nc;
  return GW_OK;
}

void gw_nccl_collect_child_env(const struct gw_nccl_collect *nc) {
  if (!nc || getenv("NCCL_DEBUG") || getenv("NCCL_DEBUG_FILE"))
    return;
  char path[PATH_MAX + 32];
  snprintf(path, sizeof path, "%s/nccl.%%h.%%p.log", nc->dir);
  setenv("NCCL_DEBUG", "INFO", 1);
  setenv("NCCL_DEBUG_FILE", path, 1);
}

static void store_line(struct gw_nccl_collect *nc, long pid, int64_t t_ns, const char *line, size_t len) {
  if (nc->lines >= MAX_LINES) {
    nc->dropped++;
    return;
  }
  if (len > MAX_LINE_BYTES)
    len = MAX_LINE_BYTES;
  /* A failed insert (disk full) is the store's to report; the line is lost, the run goes on. */
  if (gw_store_nccl_log_put(nc->writer, t_ns, pid, line, len) == GW_OK)
    nc->lines++;
}

static void take_line(void *ctx, const struct gw_spool_file *f, char *line, size_t len) {
  struct gw_nccl_collect *nc = ctx;
  if (len > 0)
    store_line(nc, f->pid, nc->poll_t_ns, line, len);
}

void gw_nccl_collect_poll(struct gw_nccl_collect *nc) {
  if (!nc)
    return;
  nc->poll_t_ns = gw_now_realtime_ns();
  gw_line_spool_poll(&nc->spool, 0, take_line, NULL, nc);
}

uint64_t gw_nccl_collect_lines(const struct gw_nccl_collect *nc) {
  return nc ? nc->lines : 0;
}

uint64_t gw_nccl_collect_dropped(const struct gw_nccl_collect *nc) {
  return nc ? nc->dropped : 0;
}

void gw_nccl_collect_close(struct gw_nccl_collect *nc) {
  if (!nc)
    return;
  gw_store_nccl_log_close(nc->writer);
  gw_line_spool_remove(&nc->spool);
  free(nc);
}
