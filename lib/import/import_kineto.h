/* Kineto / Chrome trace JSON (torch.profiler's export_chrome_trace), read
 * as a stream (json_stream.h): the document is never loaded, records go to the
 * sink as each event closes. The format: the Chrome Trace Event Format
 * ("traceEvents", ph/ts/dur in microseconds) with Kineto's categories and
 * args (kernel, gpu_memcpy, cuda_runtime, ...), as torch.profiler writes it. */
#ifndef GW_IMPORT_KINETO_H
#define GW_IMPORT_KINETO_H

#include <stdint.h>

#include "core/util.h"
#include "import/import_input.h"
#include "import/import_sink.h"

/* ts values at or above this many microseconds are absolute epoch times
 * (older traces); relative ones stay below the 3-month base period. */
#define GW_KINETO_ABSOLUTE_TS_MIN_US 100000000000000LL /* 1e14 us, 1973 as an epoch time */

enum gw_kineto_clock {
  GW_KINETO_CLOCK_RELATIVE, /* ts + baseTimeNanoseconds */
  GW_KINETO_CLOCK_ABSOLUTE, /* ts is epoch microseconds */
  GW_KINETO_CLOCK_UNKNOWN,  /* no base and small ts: times kept as found */
};

/* What the file says about itself, and what importing it found. */
struct gw_kineto_info {
  /* header (filled by the prescan) */
  int has_base;
  int64_t base_ns;
  int has_first_ts;
  int64_t first_ts_ns; /* the first event's ts as written, in ns */
  int has_rank;
  int64_t rank, world_size;
  char backend[32], nccl_version[32];
  int64_t cupti_version, cuda_driver_version, cuda_runtime_version;
  int bare_array; /* the JSON Array Format: a list of events with no header */
  int saw_events; /* a traceEvents array (or a bare array) was found */
  enum gw_kineto_clock clock;
  /* results of the import */
  int64_t pid;              /* the traced process (0 unknown) */
  uint64_t events;          /* every event object in the array */
  uint64_t kernel_events;   /* events whose category is kernel: one row each */
  uint64_t ac2g_flows;      /* launch -> GPU flow events (s and f) */
  uint64_t flow_fills;      /* records whose correlation came from a flow */
  uint64_t skipped_no_time; /* events without a usable ts/dur (not kernels) */
  uint64_t skipped_other;   /* categories gpuwhy does not import */
  uint64_t bytes;           /* decompressed bytes parsed */
};

struct gw_kineto_opts {
  int input_index; /* for the sink's GPU mapping */
  int write_steps; /* ProfilerStep#N into the step table (one rank only) */
  void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
  void *progress_ctx;
};

/* Read the header fields up to the first event (and, when the trace has a
 * relative first ts but no base before the events, on to the end to find a
 * base written after them). Decides info->clock. in is rewound. */
GW_NODISCARD gw_status gw_kineto_prescan(struct gw_input *in, struct gw_kineto_info *info, struct gw_err *err);

/* Import every event into sink (begin_process / end_process included).
 * info must come from gw_kineto_prescan on the same input. */
GW_NODISCARD gw_status gw_kineto_import(struct gw_input *in, struct gw_import_sink *sink,
                                        const struct gw_kineto_opts *opts, struct gw_kineto_info *info,
                                        struct gw_err *err);

/* Parse a "us.fraction" decimal (as Kineto writes ts and dur) into ns
 * exactly, rounding past the third decimal. 0 on success. */
int gw_kineto_parse_us(const char *s, size_t n, int64_t *ns);

#endif
