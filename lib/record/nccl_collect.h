/* Captures NCCL's own debug output while a command runs: the recorder points
 * NCCL_DEBUG_FILE at a private folder (so the user's terminal is not flooded)
 * and moves the lines into the recording's nccl_log table, where the report
 * reads which transport each channel used. */
#ifndef GW_NCCL_COLLECT_H
#define GW_NCCL_COLLECT_H

#include "core/util.h"
#include "store/store.h"

struct gw_nccl_collect;

/* dir: created if missing; old nccl.*.log files in it are removed. */
GW_NODISCARD gw_status gw_nccl_collect_open(struct gw_nccl_collect **out, const char *dir, struct gw_store *store,
                                            struct gw_err *err);
/* In the child before exec: NCCL_DEBUG=INFO and NCCL_DEBUG_FILE into the
 * folder, unless the user chose NCCL_DEBUG or NCCL_DEBUG_FILE already. */
void gw_nccl_collect_child_env(const struct gw_nccl_collect *nc);
/* Move the complete lines that appeared since the last call. */
void gw_nccl_collect_poll(struct gw_nccl_collect *nc);
/* Lines stored so far, and lines dropped past the cap. */
uint64_t gw_nccl_collect_lines(const struct gw_nccl_collect *nc);
uint64_t gw_nccl_collect_dropped(const struct gw_nccl_collect *nc);
/* The files and the folder are removed; call gw_nccl_collect_poll first
 * (before the recording's last commit) to keep the last lines. */
void gw_nccl_collect_close(struct gw_nccl_collect *nc);

#endif
