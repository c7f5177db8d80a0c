/* The numeric columns of the multi-GPU table, in the order every report
 * format shows them (rank, GPU-Util, SM activity, tensor, SM clock, NCCL
 * share, overlapped): one list, so text, Markdown and HTML agree. */
#ifndef GW_MULTI_GPU_CELLS_H
#define GW_MULTI_GPU_CELLS_H

#include "analysis/multi_gpu.h"

#define GW_MGPU_NUMBER_COLUMNS 7

struct gw_mgpu_cell {
  double value; /* NAN: unknown, shown as a dash */
  const char *unit;
};

/* The row of GPU g: cells[c] for each of the GW_MGPU_NUMBER_COLUMNS columns. */
void gw_mgpu_number_cells(const struct gw_mgpu_gpu *g, struct gw_mgpu_cell cells[GW_MGPU_NUMBER_COLUMNS]);

#endif
