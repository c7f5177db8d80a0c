/* A folder of append-only text files written by the recorded program (NCCL's
 * debug logs, the Python hook's step spools), read line by line as they grow:
 * only complete lines are handed on, each file from where the last read
 * stopped. */
#ifndef GW_LINE_SPOOL_H
#define GW_LINE_SPOOL_H

#include <stddef.h>
#include <sys/types.h>

struct gw_err;

#define GW_LINE_SPOOL_MAX_FILES 1024

struct gw_spool_file {
  char name[96];
  long pid;     /* from the name: the digits before the suffix, -1 when none */
  off_t offset; /* bytes already handed on (complete lines only) */
};

struct gw_line_spool {
  const char *dir, *prefix, *suffix; /* owned by the caller */
  int nfiles;
  struct gw_spool_file files[GW_LINE_SPOOL_MAX_FILES];
};

/* Sets sp up on the folder dir, which the recorded program writes into:
 * makes it (0700; one that exists is kept) and copies its absolute path into
 * dir_buf (dir_cap bytes), as the program may change its working directory.
 * 0; -1 with err set when the folder cannot be made; 1 when its path does not
 * fit (the caller names the folder in err). */
int gw_line_spool_make_dir(struct gw_line_spool *sp, char *dir_buf, size_t dir_cap, const char *dir, const char *prefix,
                           const char *suffix, struct gw_err *err);
/* Removes the folder's PREFIX...SUFFIX files: those of an earlier run before
 * the program starts, or those read once the recording holds their lines. */
void gw_line_spool_clear(const struct gw_line_spool *sp);
/* gw_line_spool_clear, then the folder itself when that left it empty:
 * files the user put there stay. */
void gw_line_spool_remove(const struct gw_line_spool *sp);

/* Called with each complete line, its newline removed (len excludes it). */
typedef void (*gw_spool_line_fn)(void *ctx, const struct gw_spool_file *f, char *line, size_t len);
/* Called when a file ends in a line without its newline at the final read. */
typedef void (*gw_spool_torn_fn)(void *ctx, const struct gw_spool_file *f);

/* Look for new files named PREFIX...SUFFIX and hand on the lines added to
 * every file since the last call. final: the writers are gone, so a last line
 * without a newline is torn (torn is called) rather than still being written. */
void gw_line_spool_poll(struct gw_line_spool *sp, int final, gw_spool_line_fn on_line, gw_spool_torn_fn torn,
                        void *ctx);

#endif
