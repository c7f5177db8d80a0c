/* Reading an Nsight Systems SQLite export (nsys export --type sqlite), for
 * the importer (lib/import/import_nsys.c), which turns its rows into tracer
 * records. Only lib/store talks SQL: this module knows the export's tables
 * and columns, builds the queries, checks every column before reading it
 * (a required one that is absent is an error naming it; an optional one reads
 * as NULL and is noted), and hands the rows over one at a time.
 *
 * Columns of a row are numbered as the query listed them; a query with a
 * name (gw_nsys_query.name) has it as one more column at the end. */
#ifndef GW_STORE_NSYS_SQLITE_H
#define GW_STORE_NSYS_SQLITE_H

#include <stddef.h>
#include <stdint.h>

#include "../core/util.h"

struct gw_nsys_db;
struct gw_nsys_rows;

/* Open the export at path read-only; name is the file's name in messages. */
GW_NODISCARD gw_status gw_nsys_db_open_file(struct gw_nsys_db **out, const char *path, const char *name,
                                            struct gw_err *err);
/* Open an export held in memory (len bytes, copied). */
GW_NODISCARD gw_status gw_nsys_db_open_bytes(struct gw_nsys_db **out, const void *data, size_t len, const char *name,
                                             struct gw_err *err);
void gw_nsys_db_close(struct gw_nsys_db *db);

/* GW_EINPUT with a message unless the file is a readable SQLite database that
 * is not a gpuwhy recording and has at least one table an nsys export has. */
GW_NODISCARD gw_status gw_nsys_db_check(struct gw_nsys_db *db, struct gw_err *err);

int gw_nsys_db_has_table(struct gw_nsys_db *db, const char *table);
int gw_nsys_db_has_column(struct gw_nsys_db *db, const char *table, const char *column);
/* StringIds with its id and value columns: names can be joined. */
int gw_nsys_db_has_strings(struct gw_nsys_db *db);

/* Tables or columns found absent, "; "-separated, each once. */
void gw_nsys_db_note_missing(struct gw_nsys_db *db, const char *what);
const char *gw_nsys_db_missing(const struct gw_nsys_db *db);

/* META_DATA_EXPORT's EXPORT_SCHEMA_VERSION into buf ("" when unknown; the
 * absence is noted). The version also goes into later messages. */
void gw_nsys_db_schema_version(struct gw_nsys_db *db, char *buf, size_t cap);
/* TARGET_INFO_SESSION_START_TIME.utcEpochNs: 1 and *ns when present and
 * positive, else 0 (its absence is noted). */
int gw_nsys_db_session_start(struct gw_nsys_db *db, int64_t *ns);

/* Every process with records in an activity or thread table, in pid order,
 * at most max (nsys packs pid = (globalPid >> 24) & 0xffffff). */
GW_NODISCARD gw_status gw_nsys_db_list_pids(struct gw_nsys_db *db, uint32_t *pids, int max, int *npids,
                                            struct gw_err *err);

/* Rows of an enumeration table (ENUM_CUDA_MEMCPY_OPER, ENUM_CUDA_MEM_KIND):
 * columns 0 id, 1 name. NULL when the table or a column is absent. */
struct gw_nsys_rows *gw_nsys_db_enum_rows(struct gw_nsys_db *db, const char *table);
/* Rows of TARGET_INFO_GPU: 0 id, 1 name, 2 totalMemory, 3 smCount (optional
 * columns read as NULL and are noted). NULL when the table cannot be read;
 * the GPUs are a nicety, so that is never an error. */
struct gw_nsys_rows *gw_nsys_db_gpu_rows(struct gw_nsys_db *db);

struct gw_nsys_column {
  const char *name;
  int required;
};

enum gw_nsys_name {
  GW_NSYS_NAME_NONE,       /* no name column */
  GW_NSYS_NAME_ID,         /* StringIds.value of name_id_column (NULL when that cannot be joined) */
  GW_NSYS_NAME_TEXT_OR_ID, /* name_text_column, else StringIds.value of name_id_column (NVTX) */
};

/* One activity table's rows of one process. */
struct gw_nsys_query {
  const char *table;
  const struct gw_nsys_column *cols;
  int ncols;
  /* globalPid or globalTid: only rows of pid. A table without the column
   * belongs to the first process (first_process). */
  const char *process_column;
  uint32_t pid;
  int first_process;
  /* when set, only rows whose type_column is one of types */
  const char *type_column;
  const int *types;
  int ntypes;
  enum gw_nsys_name name;
  const char *name_id_column, *name_text_column;
};

/* Start reading. what ("reading kernels") goes into the error message. */
GW_NODISCARD gw_status gw_nsys_rows_open(struct gw_nsys_db *db, const struct gw_nsys_query *q, const char *what,
                                         struct gw_nsys_rows **out, struct gw_err *err);
/* 1: a row is there; 0: no more; -1: SQLite failed (gw_nsys_db_fail says why). */
int gw_nsys_rows_next(struct gw_nsys_rows *r);
void gw_nsys_rows_close(struct gw_nsys_rows *r);

int gw_nsys_rows_null(const struct gw_nsys_rows *r, int col);
int64_t gw_nsys_rows_i64(const struct gw_nsys_rows *r, int col);
/* The text of col (NULL when NULL) and its length in bytes; valid until the next row. */
const char *gw_nsys_rows_text(const struct gw_nsys_rows *r, int col, size_t *len);

/* Sets err to "NAME: what: SQLite's message"; returns GW_EINPUT. */
gw_status gw_nsys_db_fail(struct gw_nsys_db *db, const char *what, struct gw_err *err);

#endif
