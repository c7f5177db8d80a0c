#include "trace_collect.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/i18n.h"
#include "sources/trace_reader.h"
#include "store/store_write.h"

#define MAX_TRACE_FILES 256

struct trace_file {
  char name[64];
  struct gw_trace_reader *rd;
  int failed;   /* said once, then left alone */
  int complete; /* read to its end record: everything in it reached the store */
};

struct gw_trace_collect {
  char dir[PATH_MAX];
  struct gw_store *store;
  struct gw_store_trace *writer;
  struct gw_trace_callbacks cb;
  int nfiles;
  struct trace_file files[MAX_TRACE_FILES];
  uint64_t records;
};

gw_status gw_trace_collect_open(struct gw_trace_collect **out, const char *dir, struct gw_store *store,
                                struct gw_err *err) {
  *out = NULL;
  struct gw_trace_collect *tc = gw_xcalloc(1, sizeof *tc);
  if (gw_strlcpy(tc->dir, dir, sizeof tc->dir)) {
    gw_err_set(err, _("trace folder path too long: %s"), dir);
    free(tc);
    return GW_ERR;
  }
  tc->store = store;
  gw_status rc = gw_store_trace_open_on(&tc->writer, store, err);
  if (rc != GW_OK) {
    free(tc);
    return rc;
  }
  tc->cb = gw_store_trace_callbacks(tc->writer);
  *out = tc;
  return GW_OK;
}

static void emit_note(const struct gw_event_sink *events, const char *msg) {
  struct gw_event ev = {.t_ns = gw_now_realtime_ns(), .kind = "note", .gpu = -1};
  /* Keep the tail when long: file names and offsets come last. */
  size_t n = strlen(msg), room = sizeof ev.message - sizeof "tracer: ";
  memcpy(ev.message, "tracer: ", 8);
  gw_strlcpy(ev.message + 8, n > room ? msg + (n - room) : msg, sizeof ev.message - 8);
  gw_emit(events, &ev);
}

static void discover(struct gw_trace_collect *tc, const struct gw_event_sink *events) {
  DIR *d = opendir(tc->dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!gw_name_matches(de->d_name, "trace-", ".gwt") || strlen(de->d_name) >= sizeof tc->files[0].name)
      continue;
    int known = 0;
    for (int i = 0; i < tc->nfiles && !known; i++)
      known = strcmp(tc->files[i].name, de->d_name) == 0;
    if (known || tc->nfiles >= MAX_TRACE_FILES)
      continue;
    struct trace_file *f = &tc->files[tc->nfiles];
    memset(f, 0, sizeof *f);
    gw_strlcpy(f->name, de->d_name, sizeof f->name);
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", tc->dir, f->name);
    struct gw_err err = {{0}};
    if (gw_trace_reader_open(&f->rd, path, &err) != GW_OK) {
      emit_note(events, err.msg);
      continue;
    }
    tc->nfiles++;
  }
  closedir(d);
}

void gw_trace_collect_poll(struct gw_trace_collect *tc, const struct gw_event_sink *events) {
  if (!tc)
    return;
  discover(tc, events);
  for (int i = 0; i < tc->nfiles; i++) {
    struct trace_file *f = &tc->files[i];
    if (f->failed)
      continue;
    uint64_t n = 0;
    struct gw_err err = {{0}};
    if (gw_trace_reader_poll(f->rd, &tc->cb, &n, &err) != GW_OK) {
      f->failed = 1;
      emit_note(events, err.msg);
    }
    tc->records += n;
  }
}

void gw_trace_collect_finish(struct gw_trace_collect *tc, const struct gw_event_sink *events) {
  if (!tc)
    return;
  gw_trace_collect_poll(tc, events);
  for (int i = 0; i < tc->nfiles; i++) {
    struct gw_err err = {{0}};
    if (tc->files[i].failed)
      continue;
    if (gw_trace_reader_finish(tc->files[i].rd, &err) != GW_OK)
      emit_note(events, err.msg);
    else
      tc->files[i].complete = 1;
  }
}

void gw_trace_collect_remove_read(struct gw_trace_collect *tc) {
  if (!tc)
    return;
  for (int i = 0; i < tc->nfiles; i++) {
    if (!tc->files[i].complete)
      continue;
    char path[PATH_MAX + 64];
    snprintf(path, sizeof path, "%s/%s", tc->dir, tc->files[i].name);
    unlink(path);
  }
}

uint64_t gw_trace_collect_records(const struct gw_trace_collect *tc) {
  return tc ? tc->records : 0;
}

void gw_trace_collect_close(struct gw_trace_collect *tc) {
  if (!tc)
    return;
  for (int i = 0; i < tc->nfiles; i++)
    gw_trace_reader_close(tc->files[i].rd);
  gw_store_trace_close(tc->writer);
  free(tc);
}

int gw_trace_find_library(const char *explicit_path, char *out, size_t cap) {
  const char *env = getenv("GPUWHY_TRACER_LIB");
  const char *given = explicit_path ? explicit_path : env;
  if (given)
    return access(given, R_OK) == 0 && !gw_strlcpy(out, given, cap) ? 0 : -1;
  static const char *const candidates[] = {"/tracer/libgpuwhy-tracer.so", "/../lib/gpuwhy/libgpuwhy-tracer.so",
                                           "/libgpuwhy-tracer.so"};
  for (size_t i = 0; i < sizeof candidates / sizeof *candidates; i++)
    if (gw_path_beside_exe(candidates[i], out, cap) == 0 && access(out, R_OK) == 0)
      return 0;
  return -1;
}
