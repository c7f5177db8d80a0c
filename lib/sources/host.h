/* Host source: CPU per core and in total, the target's process tree, disks,
 * memory, pressure (PSI), power supply and cpufreq governor. Every read goes
 * through a root directory so tests feed fixture trees ("" or "/" is live). */
#ifndef GW_HOST_H
#define GW_HOST_H

#include "../core/sample.h"
#include "../core/util.h"

struct gw_host;

GW_NODISCARD gw_status gw_host_open(struct gw_host **out, const char *root, struct gw_err *err);
void gw_host_close(struct gw_host *h);

/* The process whose tree is followed (the training job); 0 follows none.
 * Descendants (data-loader workers) are found by parent pid. */
void gw_host_set_target(struct gw_host *h, int pid);

/* What gw_host_sample reads. 0 reads everything but the full /proc scan. */
enum {
  GW_HOST_RESCAN = 1,    /* also look for new processes of the tree (reads all of /proc) */
  GW_HOST_SKIP_SLOW = 2, /* skip per-core rows, disks, memory, load, pressure, power supply and governor */
};

/* Take one sample. Rates (CPU %, disk figures) need two samples: on the first
 * call they are marked invalid. The arrays in out belong to h and stay valid
 * until the next call. Malformed files skip the field, never crash; a short
 * note goes to err (and the call still returns GW_OK) when a field was skipped.
 * what: GW_HOST_* bits; without GW_HOST_RESCAN only the known pids are re-read.
 * Pressure (PSI) shares cover the time since PSI was last read. */
GW_NODISCARD gw_status gw_host_sample(struct gw_host *h, int64_t t_ns, unsigned what, struct gw_host_sample *out,
                                      const struct gw_event_sink *events, struct gw_err *err);

/* Static host facts for the run table. */
struct gw_host_info {
  char hostname[256];
  char kernel[256]; /* uname -r */
  char cpu_model[256];
  int logical_cpus;
  int physical_cores; /* -1 unknown */
  int64_t mem_total_bytes;
};
void gw_host_info(struct gw_host *h, struct gw_host_info *out);

/* ---- pure parsers, exposed for tests and fuzzing ---- */

struct gw_cpu_ticks {
  uint64_t user, nice, system, idle, iowait, irq, softirq, steal;
};
/* Parse /proc/stat text: total into *total, per-core into cores[0..max).
 * Returns the number of cores, or -1 (with err) when the cpu line is missing or malformed. */
int gw_parse_proc_stat(const char *text, struct gw_cpu_ticks *total, struct gw_cpu_ticks *cores, int max,
                       struct gw_err *err);

struct gw_pid_stat {
  int pid, ppid;
  char comm[32];
  char state;
  uint64_t utime_ticks, stime_ticks;
  int num_threads;
  int64_t rss_pages;
  uint64_t starttime_ticks;
};
/* Parse /proc/<pid>/stat (comm may hold spaces and ')'). 0 or -1 with err. */
int gw_parse_pid_stat(const char *text, struct gw_pid_stat *out, struct gw_err *err);

struct gw_disk_counters {
  char name[32];
  uint64_t rd_ios, rd_sectors, rd_ticks_ms, wr_ios, wr_sectors, wr_ticks_ms, io_ticks_ms, weighted_ms;
  uint64_t dc_ios, dc_ticks_ms; /* discards, 0 on old kernels */
};
/* Parse /proc/diskstats; keeps whole disks and skips partitions, loop and ram
 * devices. Returns the count written (at most max), -1 on malformed text. */
int gw_parse_diskstats(const char *text, struct gw_disk_counters *out, int max, struct gw_err *err);

/* Parse a /proc/pressure/<res> file: the "total=" microsecond counters. */
int gw_parse_psi(const char *text, uint64_t *some_total_us, uint64_t *full_total_us, struct gw_err *err);

#endif
