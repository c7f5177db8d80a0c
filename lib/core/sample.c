#include "sample.h"

const struct gw_metric_info gw_gpu_metric_info[GW_GPU_NMETRICS] = {
#define INTEGER 1
#define REAL 0
#define FAST GW_TABLE_FAST
#define SLOW GW_TABLE_SLOW
#define X(id, sqltype, table, unit, help) {#id, sqltype, table, unit, help},
#include "gpu_metrics.def"
#undef X
#undef INTEGER
#undef REAL
#undef FAST
#undef SLOW
};
