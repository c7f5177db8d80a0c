/* libgpuwhy public API: what the gpuwhy CLI and the exporter use. */
#ifndef GPUWHY_H
#define GPUWHY_H

#define GPUWHY_EXIT_OK 0
#define GPUWHY_EXIT_FINDINGS 1
#define GPUWHY_EXIT_USAGE 2
#define GPUWHY_EXIT_INPUT 3
/* Commands that run another (record, sweep, experiment) exit with its status,
 * so their own failures use the statuses timeout(1) and env(1) use, which a
 * program rarely exits with: gpuwhy itself failed (it could not record), the
 * command was found but could not be run, the command was not found. */
#define GPUWHY_EXIT_TOOL_FAILED 125
#define GPUWHY_EXIT_CANNOT_RUN 126
#define GPUWHY_EXIT_NOT_FOUND 127

const char *gw_version(void);

/* Recording files, for the CLI's own plumbing (report imports a trace into
 * a temporary recording). */
#include <stddef.h>
/* 1 when path is a SQLite file carrying gpuwhy's application id; 0 otherwise. */
int gw_store_file_is_recording(const char *path);
/* Unlinks a recording and the side files SQLite may have left beside it. */
void gw_store_remove_files(const char *path);
/* Creates a private folder $TMPDIR/PREFIX-XXXXXX (/tmp without TMPDIR) and
 * writes its path to out; -1 with errno when it cannot. *parent_out (may be
 * NULL) gets the folder it was made in, for messages. */
int gw_make_temp_dir(const char *prefix, char *out, size_t cap, const char **parent_out);

#endif
