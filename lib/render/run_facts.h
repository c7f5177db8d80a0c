/* The facts of a recorded run that the analysis does not need but people
 * do: the command, the host, the driver, each GPU's UUID and name. Read
 * from the run and gpu tables for the HTML report, the Perfetto export and
 * the Prometheus exporter's labels. */
#ifndef GW_RUN_FACTS_H
#define GW_RUN_FACTS_H

#include <stdint.h>

#include "core/util.h"

#define GW_FACTS_MAX_GPUS 64

struct gw_gpu_facts {
  int gpu;
  char uuid[96], name[96], pci_bus_id[32];
  double mem_total_bytes, power_default_limit_mw, sm_clock_max_mhz; /* NAN unknown */
};

struct gw_run_facts {
  char source[32];
  char command[2048]; /* argv joined for people (quoted where a shell would need it), "" unknown */
  char cwd[512];
  char hostname[128], kernel[128], cpu_model[128];
  char driver_version[64], nvml_version[64];
  int cuda_driver_version; /* e.g. 13000; 0 unknown */
  int logical_cpus, physical_cores, interval_ms, target_pid;
  double mem_total_bytes; /* NAN unknown */
  int64_t started_ns, ended_ns;
  int exit_status; /* -1 unknown */
  char gpu_note[256];
  int ngpus;
  struct gw_gpu_facts gpus[GW_FACTS_MAX_GPUS];
};

/* Read the facts of the recording at path (opened read-only). Missing
 * columns or rows leave the fields at "", 0 or NAN. */
GW_NODISCARD gw_status gw_run_facts_load(const char *path, struct gw_run_facts *out, struct gw_err *err);

/* A JSON array of strings (the run table's command) as one line for
 * people: arguments separated by spaces, single-quoted when they hold
 * characters a shell would interpret. Text that is not such an array is
 * copied as it is. Always NUL-terminates; truncates to cap. */
void gw_command_for_people(const char *json, char *out, size_t cap);

/* The facts of GPU index gpu, or NULL. */
const struct gw_gpu_facts *gw_run_facts_gpu(const struct gw_run_facts *f, int gpu);

#endif
