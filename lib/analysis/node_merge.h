/* Several recordings of one job, one per node, analysed together: their
 * GPUs side by side (numbered one after another, labelled by host and the
 * GPU's own index), events and NCCL logs combined. Times are each host's
 * CLOCK_REALTIME; hosts kept in step by NTP agree far better than the
 * 100 ms sampling tick. */
#ifndef GW_NODE_MERGE_H
#define GW_NODE_MERGE_H

#include "analysis/series.h"

/* Merge n loaded recordings into one, taking ownership of all of them
 * (they are freed or moved; do not use them after). Host signals, steps and
 * run facts are the first recording's; every node's counted steps
 * (step_flops) are kept, tagged with their node. n >= 1; never fails. */
struct gw_recording *gw_recording_merge_nodes(struct gw_recording **recs, int n);

#endif
