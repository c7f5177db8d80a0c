/* libgpuwhy public API for `gpuwhy import`: turn a trace made by another
 * tool into a gpuwhy recording, so report and compare read it unchanged.
 *
 * Formats are told apart by their content, never by the file name:
 *   - PyTorch profiler (Kineto) / Chrome trace JSON, plain or gzip, or a
 *     directory of them (one per rank) that becomes one multi-rank recording;
 *   - Nsight Systems SQLite export (nsys export --type sqlite);
 *   - nvidia-smi dmon output and nvidia-smi --query-gpu CSV logs.
 * Memory stays bounded whatever the input size: records go to the recording
 * as they are read. */
#ifndef GPUWHY_IMPORT_H
#define GPUWHY_IMPORT_H

#include <stddef.h>
#include <stdint.h>

enum gw_import_format {
  GW_IMPORT_UNKNOWN = 0,
  GW_IMPORT_KINETO,    /* Chrome trace JSON from torch.profiler / Kineto */
  GW_IMPORT_NSYS,      /* Nsight Systems SQLite export */
  GW_IMPORT_SMI_DMON,  /* nvidia-smi dmon */
  GW_IMPORT_SMI_QUERY, /* nvidia-smi --query-gpu=... --format=csv */
};

/* Short name of a format ("kineto", "nsys", "nvidia-smi dmon", ...). */
const char *gw_import_format_name(enum gw_import_format f);

struct gw_import_opts {
  /* Called now and then with the input bytes read so far and the total
   * (compressed sizes for gzip input; total 0 when unknown). May be NULL.
   * The library never prints: the CLI draws the bar. */
  void (*progress)(void *ctx, uint64_t done_bytes, uint64_t total_bytes);
  void *progress_ctx;
  /* nvidia-smi logs without date/time columns: seconds between samples
   * (0: 1 s, dmon's default) and the time of the first sample in ns since
   * the epoch (0: the file's modification time minus the logged span). */
  double smi_interval_s;
  int64_t smi_start_ns;
  /* replace the output even when it is not a gpuwhy recording (import --force) */
  int force;
};

/* What an import found. Counts are rows written to the recording. */
struct gw_import_summary {
  enum gw_import_format format;
  int files;        /* input files read (several for a directory of ranks) */
  int ranks;        /* distinct ranks (1 when the trace says nothing about ranks) */
  int gpus;         /* GPUs in the recording */
  uint64_t events;  /* trace events or rows read */
  uint64_t kernels; /* kernel rows; equals the trace's own kernel count */
  uint64_t memcpys, memsets, syncs, api_calls, markers, steps, gpu_samples;
  uint64_t skipped; /* events read but not imported (categories gpuwhy does not
                       use, events without times) */
  uint64_t input_bytes;
  char notes[1024]; /* what the user should know (assumed times, missing
                       columns), one per line */
};

/* Import input (a file or a directory of per-rank Kineto traces) into a new
 * recording at output (replaced only when the import succeeds). Returns
 * GPUWHY_EXIT_OK (0), or GPUWHY_EXIT_INPUT (3) with the reason in errbuf:
 * the file, the byte offset or line, and what was expected there.
 * opts and summary may be NULL. */
int gw_import(const char *input, const char *output, const struct gw_import_opts *opts,
              struct gw_import_summary *summary, char *errbuf, size_t errcap);

/* The same from bytes in memory, one entry point per importer, so a fuzzer
 * can call each parser directly. name is used in messages. output may be
 * ":memory:" to parse without keeping a recording. */
int gw_import_kineto_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                            size_t errcap);
int gw_import_nsys_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                          size_t errcap);
int gw_import_smi_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                         size_t errcap);

#endif
