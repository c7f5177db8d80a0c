#include "nccl_collect.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_FILES 256
#define MAX_LINES 100000    /* NCCL logs a few hundred lines per rank at start; a cap keeps a chatty run bounded */
#define MAX_LINE_BYTES 2048 /* longer lines are cut: transports fit in the first hundred bytes */

struct nccl_file {
  char name[96];
  long pid;
  off_t offset; /* bytes already moved (complete lines only) */
};

struct gw_nccl_collect {
  char dir[PATH_MAX];
  sqlite3 *db;
  sqlite3_stmt *insert;
  int nfiles;
  struct nccl_file files[MAX_FILES];
  uint64_t lines, dropped;
};

gw_status gw_nccl_collect_open(struct gw_nccl_collect **out, const char *dir, struct gw_store *store,
                               struct gw_err *err) {
  *out = NULL;
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    gw_err_set(err, "cannot create %s: %s", dir, strerror(errno));
    return GW_ERR;
  }
  struct gw_nccl_collect *nc = gw_xcalloc(1, sizeof *nc);
  /* Absolute, in case the program changes its working directory. */
  char *abs_dir = realpath(dir, NULL);
  int too_long = gw_strlcpy(nc->dir, abs_dir ? abs_dir : dir, sizeof nc->dir);
  free(abs_dir);
  if (too_long) {
    gw_err_set(err, "NCCL log folder path too long: %s", dir);
    free(nc);
    return GW_ERR;
  }
  gw_remove_matching_files(nc->dir, "nccl.", ".log");
  nc->db = gw_store_db(store);
  if (sqlite3_exec(nc->db, "CREATE TABLE IF NOT EXISTS nccl_log (t_ns INTEGER, pid INTEGER, line TEXT);", NULL, NULL,
                   NULL) != SQLITE_OK ||
      sqlite3_prepare_v2(nc->db, "INSERT INTO nccl_log (t_ns, pid, line) VALUES (?, ?, ?)", -1, &nc->insert, NULL) !=
          SQLITE_OK) {
    gw_err_set(err, "recording: cannot create the nccl_log table: %s", sqlite3_errmsg(nc->db));
    sqlite3_finalize(nc->insert);
    free(nc);
    return GW_ERR;
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

/* File names are nccl.<host>.<pid>.log: the pid is the last dotted field. */
static long pid_of_name(const char *name) {
  const char *end = name + strlen(name) - 4;
  const char *p = end;
  while (p > name && p[-1] != '.')
    p--;
  long pid = 0;
  for (const char *q = p; q < end; q++) {
    if (*q < '0' || *q > '9' || pid > 100000000)
      return -1;
    pid = pid * 10 + (*q - '0');
  }
  return p < end ? pid : -1;
}

static void discover(struct gw_nccl_collect *nc) {
  DIR *d = opendir(nc->dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && nc->nfiles < MAX_FILES) {
    if (!gw_name_matches(de->d_name, "nccl.", ".log") || strlen(de->d_name) >= sizeof nc->files[0].name)
      continue;
    int known = 0;
    for (int i = 0; i < nc->nfiles && !known; i++)
      known = strcmp(nc->files[i].name, de->d_name) == 0;
    if (known)
      continue;
    struct nccl_file *f = &nc->files[nc->nfiles++];
    memset(f, 0, sizeof *f);
    gw_strlcpy(f->name, de->d_name, sizeof f->name);
    f->pid = pid_of_name(f->name);
  }
  closedir(d);
}

static void store_line(struct gw_nccl_collect *nc, long pid, int64_t t_ns, const char *line, size_t len) {
  if (nc->lines >= MAX_LINES) {
    nc->dropped++;
    return;
  }
  if (len > MAX_LINE_BYTES)
    len = MAX_LINE_BYTES;
  sqlite3_bind_int64(nc->insert, 1, t_ns);
  if (pid >= 0)
    sqlite3_bind_int64(nc->insert, 2, pid);
  else
    sqlite3_bind_null(nc->insert, 2);
  sqlite3_bind_text(nc->insert, 3, line, (int)len, SQLITE_TRANSIENT);
  /* A failed insert (disk full) is the store's to report; the line is lost, the run goes on. */
  if (sqlite3_step(nc->insert) == SQLITE_DONE)
    nc->lines++;
  sqlite3_reset(nc->insert);
}

static void read_new_lines(struct gw_nccl_collect *nc, struct nccl_file *f, int64_t t_ns) {
  char path[PATH_MAX + 128];
  snprintf(path, sizeof path, "%s/%s", nc->dir, f->name);
  FILE *fp = fopen(path, "re");
  if (!fp)
    return;
  if (fseeko(fp, f->offset, SEEK_SET) != 0) {
    fclose(fp);
    return;
  }
  char *line = NULL;
  size_t cap = 0;
  ssize_t n;
  while ((n = getline(&line, &cap, fp)) > 0) {
    if (line[n - 1] != '\n')
      break; /* NCCL is still writing it: take it next time */
    f->offset += n;
    size_t len = (size_t)n - 1;
    if (len > 0)
      store_line(nc, f->pid, t_ns, line, len);
  }
  free(line);
  fclose(fp);
}

void gw_nccl_collect_poll(struct gw_nccl_collect *nc) {
  if (!nc)
    return;
  discover(nc);
  int64_t t_ns = gw_now_realtime_ns();
  for (int i = 0; i < nc->nfiles; i++)
    read_new_lines(nc, &nc->files[i], t_ns);
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
  sqlite3_finalize(nc->insert);
  gw_remove_matching_files(nc->dir, "nccl.", ".log");
  rmdir(nc->dir); /* only when empty: files the user put there stay */
  free(nc);
}
