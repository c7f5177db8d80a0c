/* Which job a recording belongs to (see store_job.h). */
#include "store/store_job.h"
#include "store_sql.h"

#include <fcntl.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "store/store.h"
#include "store/store_setup.h"

static void read_env(sqlite3 *db, const char *name, char *dst, size_t cap) {
  sqlite3_stmt *s = NULL;
  dst[0] = '\0';
  if (sqlite3_prepare_v2(db, "SELECT value FROM env WHERE name = ?", -1, &s, NULL) == SQLITE_OK) {
    sqlite3_bind_text(s, 1, name, -1, SQLITE_STATIC);
    if (sqlite3_step(s) == SQLITE_ROW && sqlite3_column_type(s, 0) == SQLITE_TEXT)
      gw_strlcpy(dst, (const char *)sqlite3_column_text(s, 0), cap);
  }
  sqlite3_finalize(s);
}

static int env_int(sqlite3 *db, const char *name) {
  char v[32];
  read_env(db, name, v, sizeof v);
  char *end = NULL;
  long n = v[0] ? strtol(v, &end, 10) : -1;
  return v[0] && end && !*end && n >= 0 && n < 1000000 ? (int)n : -1;
}

void gw_store_job_of(struct gw_store *st, struct gw_store_job *job) {
  memset(job, 0, sizeof *job);
  job->world_size = job->rank = -1;
  sqlite3 *db = gw_store_db(st);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, "SELECT started_ns, ended_ns, hostname FROM run WHERE id = 1", -1, &s, NULL) ==
          SQLITE_OK &&
      sqlite3_step(s) == SQLITE_ROW) {
    /* a time that is not an integer is unknown, not 0 */
    if (sqlite3_column_type(s, 0) == SQLITE_INTEGER && sqlite3_column_int64(s, 0) > 0)
      job->started_ns = sqlite3_column_int64(s, 0);
    if (sqlite3_column_type(s, 1) == SQLITE_INTEGER && sqlite3_column_int64(s, 1) > 0)
      job->ended_ns = sqlite3_column_int64(s, 1);
    if (sqlite3_column_type(s, 2) == SQLITE_TEXT)
      gw_strlcpy(job->hostname, (const char *)sqlite3_column_text(s, 2), sizeof job->hostname);
  }
  sqlite3_finalize(s);
  if (gw_store_read_meta(st, "run_id", job->run_id, sizeof job->run_id) != 0)
    job->run_id[0] = '\0';
  if (gw_store_table_exists(db, "env")) {
    char addr[256], port[32];
    read_env(db, "TORCHELASTIC_RUN_ID", job->job_id, sizeof job->job_id);
    if (!job->job_id[0])
      read_env(db, "SLURM_JOB_ID", job->job_id, sizeof job->job_id);
    if (!job->job_id[0]) {
      read_env(db, "MASTER_ADDR", addr, sizeof addr);
      read_env(db, "MASTER_PORT", port, sizeof port);
      if (addr[0] && port[0])
        snprintf(job->job_id, sizeof job->job_id, "%s:%s", addr, port);
    }
    job->world_size = env_int(db, "WORLD_SIZE");
    job->rank = env_int(db, "RANK");
  }
}

enum gw_job_match gw_store_jobs_match(const struct gw_store_job *a, const struct gw_store_job *b) {
  if (a->run_id[0] && strcmp(a->run_id, b->run_id) == 0)
    return GW_JOB_SAME_RUN;
  if (a->job_id[0] && b->job_id[0] && strcmp(a->job_id, b->job_id) != 0)
    return GW_JOB_OTHER_ID;
  if (!a->started_ns || !a->ended_ns || !b->started_ns || !b->ended_ns)
    return GW_JOB_TIME_UNKNOWN;
  /* Ranks of one job run at the same time; a recorder started a little
   * after its neighbour still overlaps it. */
  if (a->started_ns > b->ended_ns || b->started_ns > a->ended_ns)
    return GW_JOB_APART;
  return GW_JOB_MATCH;
}

void gw_store_new_run_id(char *out, size_t cap) {
  unsigned char bytes[16];
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  ssize_t got = fd >= 0 ? read(fd, bytes, sizeof bytes) : -1;
  if (fd >= 0)
    close(fd);
  if (got != (ssize_t)sizeof bytes) {
    /* no urandom (a chroot): the time and pid still tell runs apart */
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    uint64_t x = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec, y = (uint64_t)getpid();
    memcpy(bytes, &x, 8);
    memcpy(bytes + 8, &y, 8);
  }
  size_t n = 0;
  for (size_t i = 0; i < sizeof bytes && n + 3 <= cap; i++)
    n += (size_t)snprintf(out + n, cap - n, "%02x", bytes[i]);
  if (cap)
    out[n < cap ? n : cap - 1] = '\0';
}
