/* GPU source: NVML loaded at run time with dlopen (no nvml.h needed to build).
 * Thread-compatible, not thread-safe: one sampler thread uses a handle. */
#ifndef GW_NVML_H
#define GW_NVML_H

#include "../core/sample.h"
#include "../core/util.h"
#include "gpu_backend.h"

struct gw_nvml;

/* Load NVML and enumerate the GPUs. lib_path NULL: $GPUWHY_NVML_LIB, then
 * libnvidia-ml.so.1, then libnvidia-ml.so. Returns GW_ENOTSUP with a one-line
 * reason in err when there is no library, no driver or no GPU. */
GW_NODISCARD gw_status gw_nvml_open(struct gw_nvml **out, const char *lib_path, struct gw_err *err);
void gw_nvml_close(struct gw_nvml *nv);

unsigned gw_nvml_gpu_count(const struct gw_nvml *nv);
void gw_nvml_driver_info(const struct gw_nvml *nv, struct gw_driver_info *out);
GW_NODISCARD gw_status gw_nvml_gpu_info(struct gw_nvml *nv, unsigned gpu, struct gw_gpu_info *out, struct gw_err *err);

/* Which metrics to read in this call (bench/sampler/nvml_cost: on an H200
 * behind GSP firmware most NVML reads are round trips costing tens of
 * microseconds to milliseconds of CPU, so each tier is read only as often as
 * what it measures changes):
 * FAST   every tick: nvidia-smi's utilization and the GPM window when due;
 * SECOND about once a second: power, P-state, clocks and their event reasons,
 *        memory used (FAST | SLOW implies it);
 * SLOW   health, every few seconds: power limit, temperatures, violation
 *        counters, PCIe link and replays, ECC, remapped rows;
 * RARE   the energy counter and HW slowdown counters, milliseconds each: at
 *        the start, the end and every half minute or so. */
enum {
  GW_NVML_FAST = GW_GPU_FAST,
  GW_NVML_SLOW = GW_GPU_SLOW,
  GW_NVML_RARE = GW_GPU_RARE,
  GW_NVML_SECOND = GW_GPU_SECOND
};

/* GPM metrics are computed over back-to-back windows of at least this length
 * (default and minimum 100 ms); ticks between window ends leave them invalid.
 * Each window costs about 0.5 ms on an H200 with driver 580 (a sample and
 * the metrics; bench/RESULTS.md). */
void gw_nvml_set_gpm_window_ms(struct gw_nvml *nv, unsigned ms);

/* Never read GPM (record --no-gpm): the GPU is handled as one without GPM
 * (gpm_supported 0, GPM columns NULL, PCIe from NVML's own counters), so a
 * substitute for SM activity can be compared with GPM on the same program. */
void gw_nvml_disable_gpm(struct gw_nvml *nv);

/* Read one GPU. out->valid tells what was read; NOT_SUPPORTED metrics stay
 * invalid (never 0). Emits a "clock_reasons" event when the bitmask changes.
 * Returns GW_ELOST once the GPU is lost (a "gpu_lost" event is emitted once);
 * the caller stops sampling that GPU and carries on with the rest. */
GW_NODISCARD gw_status gw_nvml_sample(struct gw_nvml *nv, unsigned gpu, int64_t t_ns, unsigned what,
                                      struct gw_gpu_sample *out, const struct gw_event_sink *events);

/* Processes using the GPU (compute and graphics). Returns how many were
 * written to out (at most max), or -1 on failure. */
int gw_nvml_processes(struct gw_nvml *nv, unsigned gpu, int64_t t_ns, struct gw_gpu_proc *out, int max);

#endif
