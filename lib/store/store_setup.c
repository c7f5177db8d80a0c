/* A run's setup read from its recording (see store_setup.h). */
#include "store_setup.h"
#include "store_sql.h"

#include <sqlite3.h>
#include <stdio.h>
#include <string.h>

#include "store.h"

static const char *column_text(sqlite3_stmt *st, int col) {
  const unsigned char *s = sqlite3_column_text(st, col);
  return s ? (const char *)s : "";
}

gw_status gw_store_read_setup(struct gw_store *store, struct gw_store_setup_facts *facts,
                              const struct gw_store_setup_lists *lists, struct gw_err *err) {
  memset(facts, 0, sizeof *facts);
  sqlite3 *db = gw_store_db(store);
  sqlite3_stmt *st = NULL;
  if (sqlite3_prepare_v2(db, "SELECT hostname, driver_version, cuda_driver_version FROM run WHERE id = 1", -1, &st,
                         NULL) != SQLITE_OK) {
    gw_err_set(err, "%s: table run unreadable: %s", gw_store_path(store), sqlite3_errmsg(db));
    return GW_EINPUT;
  }
  if (sqlite3_step(st) == SQLITE_ROW) {
    gw_strlcpy(facts->hostname, column_text(st, 0), sizeof facts->hostname);
    gw_strlcpy(facts->driver_version, column_text(st, 1), sizeof facts->driver_version);
    facts->cuda_driver_known = sqlite3_column_type(st, 2) != SQLITE_NULL;
    facts->cuda_driver_version = sqlite3_column_int(st, 2);
  }
  sqlite3_finalize(st);

  /* The command is a JSON array; a damaged one just leaves the command unknown. */
  if (sqlite3_prepare_v2(db,
                         "SELECT j.value FROM run, json_each(run.command) AS j "
                         "WHERE run.id = 1 AND json_valid(run.command) AND json_type(run.command) = 'array' "
                         "ORDER BY j.key",
                         -1, &st, NULL) == SQLITE_OK) {
    while (sqlite3_step(st) == SQLITE_ROW)
      lists->arg(lists->ctx, column_text(st, 0));
  }
  sqlite3_finalize(st);

  if (sqlite3_prepare_v2(db, "SELECT name, value FROM env ORDER BY name", -1, &st, NULL) == SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      lists->env(lists->ctx, column_text(st, 0), column_text(st, 1));
  sqlite3_finalize(st);

  if (sqlite3_prepare_v2(db, "SELECT name, count(*) FROM gpu GROUP BY name ORDER BY min(gpu)", -1, &st, NULL) ==
      SQLITE_OK)
    while (sqlite3_step(st) == SQLITE_ROW)
      lists->gpu_model(lists->ctx, column_text(st, 0), sqlite3_column_int(st, 1));
  sqlite3_finalize(st);

  if (gw_store_read_meta(store, "change", facts->change, sizeof facts->change) != 0)
    facts->change[0] = '\0';
  return GW_OK;
}

int gw_store_read_meta(struct gw_store *store, const char *key, char *buf, size_t cap) {
  sqlite3_stmt *st = NULL;
  int rc = -1;
  if (sqlite3_prepare_v2(gw_store_db(store), "SELECT value FROM meta WHERE key = ?", -1, &st, NULL) == SQLITE_OK) {
    sqlite3_bind_text(st, 1, key, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(st) == SQLITE_ROW && sqlite3_column_type(st, 0) != SQLITE_NULL) {
      gw_strlcpy(buf, column_text(st, 0), cap);
      rc = 0;
    }
  }
  sqlite3_finalize(st);
  return rc;
}
