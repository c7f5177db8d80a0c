/* nvidia-smi logs: `nvidia-smi dmon` output (any -s column set, with or
 * without -o D/T date and time columns, plain or --format csv) and
 * `nvidia-smi --query-gpu=... --format=csv` logs. Counters only: they go to
 * gpu_sample / gpu_health, and the run is marked counters_only. */
#ifndef GW_IMPORT_SMI_H
#define GW_IMPORT_SMI_H

#include <stddef.h>
#include <stdint.h>

#include "core/util.h"
#include "import/import_input.h"
#include "import/import_sink.h"

enum gw_smi_kind { GW_SMI_NONE, GW_SMI_DMON, GW_SMI_QUERY };

/* Which log the first line is the header of (GW_SMI_NONE: neither). */
enum gw_smi_kind gw_smi_sniff(const char *first_line, size_t len);

struct gw_smi_opts {
  double interval_s; /* between samples when the log has no times (0: 1 s) */
  int64_t start_ns;  /* first sample's time when the log has none (0: from
                        file_mtime_ns) */
  int64_t file_mtime_ns;
  void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
  void *progress_ctx;
};

struct gw_smi_result {
  enum gw_smi_kind kind;
  uint64_t lines, samples;
  int times_assumed; /* the log had no times: they come from the interval and
                        start */
  char columns_ignored[512];
};

GW_NODISCARD gw_status gw_smi_import(struct gw_input *in, struct gw_import_sink *sink, const struct gw_smi_opts *opts,
                                     struct gw_smi_result *res, struct gw_err *err);

#endif
