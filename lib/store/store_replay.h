/* `gpuwhy serve --replay FILE`: a recorded run's samples served as if they
 * were happening now. The rows of the recording are copied into the
 * exporter's segments at the pace of the wall clock, their timestamps moved
 * to the present; at the end the recording starts over. It is storage work
 * (SQL between recordings), so it lives in the store; lib/serve drives it. */
#ifndef GW_STORE_REPLAY_H
#define GW_STORE_REPLAY_H

#include <stdint.h>

#include "core/util.h"

struct gw_replay;

/* Check that src is a recording and take a private copy of it (in
 * work_dir) so the original is never opened for writing. now_ns is the
 * wall-clock instant the replay starts at. */
GW_NODISCARD gw_status gw_replay_open(struct gw_replay **out, const char *src, const char *work_dir, int64_t now_ns,
                                      struct gw_err *err);
void gw_replay_close(struct gw_replay *r);

/* Length of one pass through the recording. */
int64_t gw_replay_length_ns(const struct gw_replay *r);

/* Create the segment recording seg_path and write into it from now on. */
GW_NODISCARD gw_status gw_replay_begin_segment(struct gw_replay *r, const char *seg_path, struct gw_err *err);
/* Copy every source row whose replayed time is before now_ns. */
GW_NODISCARD gw_status gw_replay_advance(struct gw_replay *r, int64_t now_ns, struct gw_err *err);

#endif
