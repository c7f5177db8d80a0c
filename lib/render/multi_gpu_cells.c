/* See multi_gpu_cells.h. */
#include "render/multi_gpu_cells.h"

#include <math.h>

void gw_mgpu_number_cells(const struct gw_mgpu_gpu *g, struct gw_mgpu_cell cells[GW_MGPU_NUMBER_COLUMNS]) {
  const struct gw_mgpu_cell row[GW_MGPU_NUMBER_COLUMNS] = {
      {g->rank >= 0 ? (double)g->rank : NAN, ""}, /* -1: no rank known */
      {g->util_med_pct, "%"},
      {g->sm_med_pct, "%"},
      {g->tensor_med_pct, "%"},
      {g->sm_clock_med_mhz, " MHz"},
      {g->nccl_share * 100, "%"},
      {g->overlap_frac * 100, "%"},
  };
  for (int c = 0; c < GW_MGPU_NUMBER_COLUMNS; c++)
    cells[c] = row[c];
}
