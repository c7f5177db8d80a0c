/* SM activity, SM occupancy, tensor and DRAM activity from DCGM's profiling
 * fields: the recording filler of windowed SM activity (record/gpu_backends.c)
 * for GPUs whose backend has none (NVML without GPM: A100, V100, T4, L4,
 * Volta and newer compute GPUs where a DCGM host engine runs, as on many
 * clusters). libdcgm is
 * loaded with dlopen only when asked for (record --dcgm); gpuwhy connects to
 * a running host engine (nv-hostengine, standalone mode) and never starts
 * one. Built on DCGM's documented API and tested against a fake library:
 * unverified on hardware (no DCGM on the machines gpuwhy was measured on).
 * Thread-compatible: one sampler thread uses a handle. */
#ifndef GW_DCGM_H
#define GW_DCGM_H

#include "../core/sample.h"
#include "../core/util.h"

struct gw_dcgm;

/* The host engine's default address (DCGM_HE_PORT_NUMBER). */
#define GW_DCGM_DEFAULT_ADDRESS "127.0.0.1:5555"

/* Load libdcgm ($GPUWHY_DCGM_LIB, else libdcgm.so.4, else libdcgm.so.3),
 * connect to the host engine at address ("HOST[:PORT]", "unix:PATH"; NULL:
 * the default) and watch the four profiling fields on every GPU with an
 * update period of window_ms (DCGM's minimum, 100 ms, when less). GW_ENOTSUP
 * with a one-line reason in err when there is no library, no host engine, or
 * the fields cannot be watched (no profiling module, GPU not supported,
 * counters in use by another client); the caller records on without DCGM. */
GW_NODISCARD gw_status gw_dcgm_open(struct gw_dcgm **out, const char *address, unsigned window_ms, struct gw_err *err);
/* Unwatch, disconnect and unload. NULL is fine. */
void gw_dcgm_close(struct gw_dcgm *d);

/* Sets sm_active_pct, sm_occupancy_pct, tensor_active_pct and dram_bw_pct of
 * the GPU with NVML index gpu in out when DCGM has a value newer than the
 * last one given (about once per window, as GPM's columns). A field DCGM
 * says it cannot read on this GPU is left alone from then on, with one
 * "note" event; a host engine that goes away ends DCGM for the run, with one
 * note. Returns how many of the four it set. */
int gw_dcgm_fill(struct gw_dcgm *d, unsigned gpu, int64_t t_ns, struct gw_gpu_sample *out,
                 const struct gw_event_sink *events);

/* 1 once gw_dcgm_fill has set a value for NVML index gpu. */
int gw_dcgm_filled(const struct gw_dcgm *d, unsigned gpu);

/* 1 when a DCGM library can be loaded here (for a hint; nothing is started). */
int gw_dcgm_library_present(void);

#endif
