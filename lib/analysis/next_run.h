/* Suggested next runs with the recorded command filled in: the report says
 * "gpuwhy sweep ... -- python train.py --batch-size {bs}" the user can paste,
 * not "-- CMD", when the recording holds the command (run.command). */
#ifndef GW_NEXT_RUN_H
#define GW_NEXT_RUN_H

#include <stddef.h>

#include "core/util.h" /* gw_shell_quote */
#include "store/store_model.h"

/* The template tmpl with its "CMD" (the word after " -- ") replaced by the
 * recorded command, shell-quoted. A template whose CMD is followed by
 * " --batch-size {bs}" puts {bs} in place of the command's own batch-size
 * value when it has one. The template unchanged when the command is unknown
 * or does not fit in cap. */
void gw_next_run_command(const struct gw_recording *rec, const char *tmpl, char *buf, size_t cap);

#endif
