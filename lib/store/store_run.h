/* The facts of a recorded run that the analysis does not need but people
 * do, as the run and gpu tables hold them: the command, the host, the
 * driver, each GPU's UUID and name. lib/render/run_facts.h reads them for
 * the renderers and serve. */
#ifndef GW_STORE_RUN_H
#define GW_STORE_RUN_H

#include <stddef.h>
#include <stdint.h>

struct gw_store;

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

/* Turns the run table's command (a JSON array of argv) into out. */
typedef void (*gw_command_text_fn)(const char *json, char *out, size_t cap);

/* Fill *out from the recording open in st. Missing columns or rows leave
 * the fields at "", 0 or NAN (exit_status -1); the command goes through
 * command_text. */
void gw_store_read_run_facts(struct gw_store *st, struct gw_run_facts *out, gw_command_text_fn command_text);

#endif
