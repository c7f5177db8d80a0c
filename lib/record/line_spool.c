#include "line_spool.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"
#include "core/util.h"

int gw_line_spool_make_dir(struct gw_line_spool *sp, char *dir_buf, size_t dir_cap, const char *dir, const char *prefix,
                           const char *suffix, struct gw_err *err) {
  if (mkdir(dir, 0700) != 0 && errno != EEXIST) {
    gw_err_set(err, _("cannot create %s: %s"), dir, strerror(errno));
    return -1;
  }
  char *abs_dir = realpath(dir, NULL);
  int too_long = gw_strlcpy(dir_buf, abs_dir ? abs_dir : dir, dir_cap);
  free(abs_dir);
  if (too_long)
    return 1;
  *sp = (struct gw_line_spool){.dir = dir_buf, .prefix = prefix, .suffix = suffix};
  return 0;
}

void gw_line_spool_clear(const struct gw_line_spool *sp) {
  gw_remove_matching_files(sp->dir, sp->prefix, sp->suffix);
}

void gw_line_spool_remove(const struct gw_line_spool *sp) {
  gw_line_spool_clear(sp);
  rmdir(sp->dir);
}

/* NAME = PREFIX ... PID SUFFIX: the digits just before the suffix, after a
 * '.' or '-' (nccl.HOST.PID.log, py-PID.steps). */
static long pid_of_name(const char *name, const char *suffix) {
  const char *end = name + strlen(name) - strlen(suffix);
  const char *p = end;
  while (p > name && p[-1] >= '0' && p[-1] <= '9')
    p--;
  if (p == end || p == name || (p[-1] != '.' && p[-1] != '-') || end - p > 9)
    return -1;
  long pid = 0;
  for (const char *q = p; q < end; q++)
    pid = pid * 10 + (*q - '0');
  return pid;
}

static void discover(struct gw_line_spool *sp) {
  DIR *d = opendir(sp->dir);
  if (!d)
    return;
  struct dirent *de;
  while ((de = readdir(d)) != NULL && sp->nfiles < GW_LINE_SPOOL_MAX_FILES) {
    if (!gw_name_matches(de->d_name, sp->prefix, sp->suffix) || strlen(de->d_name) >= sizeof sp->files[0].name)
      continue;
    int known = 0;
    for (int i = 0; i < sp->nfiles && !known; i++)
      known = strcmp(sp->files[i].name, de->d_name) == 0;
    if (known)
      continue;
    struct gw_spool_file *f = &sp->files[sp->nfiles++];
    memset(f, 0, sizeof *f);
    gw_strlcpy(f->name, de->d_name, sizeof f->name);
    f->pid = pid_of_name(f->name, sp->suffix);
  }
  closedir(d);
}

static void read_new_lines(struct gw_line_spool *sp, struct gw_spool_file *f, int final, gw_spool_line_fn on_line,
                           gw_spool_torn_fn torn, void *ctx) {
  char path[PATH_MAX + 128];
  snprintf(path, sizeof path, "%s/%s", sp->dir, f->name);
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
    if (line[n - 1] != '\n') {
      if (final && torn)
        torn(ctx, f);
      break; /* still being written: take it next time */
    }
    f->offset += n;
    line[n - 1] = '\0';
    on_line(ctx, f, line, (size_t)n - 1);
  }
  free(line);
  fclose(fp);
}

void gw_line_spool_poll(struct gw_line_spool *sp, int final, gw_spool_line_fn on_line, gw_spool_torn_fn torn,
                        void *ctx) {
  discover(sp);
  for (int i = 0; i < sp->nfiles; i++)
    read_new_lines(sp, &sp->files[i], final, on_line, torn, ctx);
}
