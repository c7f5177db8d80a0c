/* gpuwhy import: tell the format from the content, run its importer into a
 * temporary recording, and put the recording in place only on success. */
#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/import.h>

#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/i18n.h"
#include "import_store.h"
#include "import/import_input.h"
#include "import/import_kineto.h"
#include "import/import_nsys.h"
#include "import/import_sink.h"
#include "import/import_smi.h"
#include "store/store.h"

#define SNIFF_BYTES 4096
#define MAX_RANK_FILES 4096

const char *gw_import_format_name(enum gw_import_format f) {
  switch (f) {
  case GW_IMPORT_KINETO:
    return "kineto";
  case GW_IMPORT_NSYS:
    return "nsys";
  case GW_IMPORT_SMI_DMON:
    return "nvidia-smi dmon";
  case GW_IMPORT_SMI_QUERY:
    return "nvidia-smi query";
  default:
    return "unknown";
  }
}

/* One input: a file, or bytes in memory (the fuzz entry points). */
struct source {
  const char *path;
  const void *data;
  size_t len;
  const char *name;
};

static gw_status open_source(const struct source *src, struct gw_input *in, struct gw_err *err) {
  if (src->path)
    return gw_input_open_file(in, src->path, err);
  return gw_input_open_buffer(in, src->data, src->len, src->name, err);
}

static void add_note(struct gw_import_summary *sum, const char *fmt, ...) GW_PRINTF(2, 3);
static void add_note(struct gw_import_summary *sum, const char *fmt, ...) {
  size_t len = strlen(sum->notes);
  if (len + 2 >= sizeof sum->notes)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(sum->notes + len, sizeof sum->notes - len, fmt, ap);
  va_end(ap);
  len = strlen(sum->notes);
  if (len + 1 < sizeof sum->notes) {
    sum->notes[len] = '\n';
    sum->notes[len + 1] = '\0';
  }
}

/* ---- format sniffing ---- */

static const char SQLITE_MAGIC[16] = "SQLite format 3"; /* with its NUL: 16 bytes */

/* Printable start of a file for "this is what we found" messages. */
static void snippet(const unsigned char *b, size_t n, char *out, size_t cap) {
  size_t k = 0;
  for (size_t i = 0; i < n && k + 5 < cap && i < 40; i++) {
    unsigned char c = b[i];
    if (c >= 32 && c < 127 && c != '\\') {
      out[k++] = (char)c;
    } else {
      k += (size_t)snprintf(out + k, cap - k, "\\x%02x", c);
    }
  }
  out[k] = '\0';
}

static enum gw_import_format sniff_bytes(const unsigned char *b, size_t n) {
  if (n >= sizeof SQLITE_MAGIC && memcmp(b, SQLITE_MAGIC, sizeof SQLITE_MAGIC) == 0)
    return GW_IMPORT_NSYS;
  size_t i = 0;
  if (n >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
    i = 3; /* UTF-8 byte order mark */
  while (i < n && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
    i++;
  if (i < n && (b[i] == '{' || b[i] == '['))
    return GW_IMPORT_KINETO;
  const unsigned char *eol = memchr(b + i, '\n', n - i);
  size_t line_len = eol ? (size_t)(eol - (b + i)) : n - i;
  switch (gw_smi_sniff((const char *)b + i, line_len)) {
  case GW_SMI_DMON:
    return GW_IMPORT_SMI_DMON;
  case GW_SMI_QUERY:
    return GW_IMPORT_SMI_QUERY;
  default:
    return GW_IMPORT_UNKNOWN;
  }
}

static gw_status sniff_source(const struct source *src, enum gw_import_format *fmt, int *gzip, struct gw_err *err) {
  struct gw_input in;
  gw_status rc = open_source(src, &in, err);
  if (rc)
    return rc;
  unsigned char buf[SNIFF_BYTES];
  size_t got = 0, n;
  while (got < sizeof buf && !(rc = gw_input_read(&in, buf + got, sizeof buf - got, &n, err)) && n > 0)
    got += n;
  *gzip = in.is_gzip;
  if (rc) {
    gw_input_close(&in);
    return rc;
  }
  *fmt = sniff_bytes(buf, got);
  if (*fmt == GW_IMPORT_UNKNOWN) {
    char snip[200];
    snippet(buf, got, snip, sizeof snip);
    gw_err_set(err,
               _("%s: not a format gpuwhy imports (it starts \"%s\"); expected a "
                 "Kineto/Chrome trace JSON, an Nsight "
                 "Systems SQLite export, nvidia-smi dmon output or an nvidia-smi "
                 "--query-gpu CSV log"),
               in.name, got ? snip : "(empty file)");
    rc = GW_EINPUT;
  }
  gw_input_close(&in);
  return rc;
}

/* ---- the output file ---- */

static int is_memory_path(const char *path) {
  return strcmp(path, ":memory:") == 0;
}

struct output {
  char final[PATH_MAX];
  char temp[PATH_MAX];
};

static gw_status output_begin(struct output *o, const char *path, struct gw_err *err) {
  if (gw_strlcpy(o->final, path, sizeof o->final) ||
      (!is_memory_path(path) &&
       (size_t)snprintf(o->temp, sizeof o->temp, "%s.importing-%d", path, (int)getpid()) >= sizeof o->temp)) {
    gw_err_set(err, _("output path too long: %s"), path);
    return GW_EINPUT;
  }
  if (is_memory_path(path))
    gw_strlcpy(o->temp, path, sizeof o->temp);
  return GW_OK;
}

static gw_status output_commit(struct output *o, struct gw_err *err) {
  if (is_memory_path(o->final))
    return GW_OK;
  gw_store_remove_files(o->final);
  if (rename(o->temp, o->final) != 0) {
    gw_err_set(err, _("%s: cannot move the recording into place: %s"), o->final, strerror(errno));
    gw_store_remove_files(o->temp);
    return GW_EIO;
  }
  return GW_OK;
}

static void output_abort(struct output *o) {
  if (!is_memory_path(o->temp))
    gw_store_remove_files(o->temp);
}

/* ---- Kineto: one file or a directory of ranks ---- */

struct rank_input {
  struct source src;
  char path[PATH_MAX];
  struct gw_kineto_info info;
};

static int rank_order(const void *a, const void *b) {
  const struct rank_input *x = a, *y = b;
  int64_t rx = x->info.has_rank ? x->info.rank : INT64_MAX, ry = y->info.has_rank ? y->info.rank : INT64_MAX;
  if (rx != ry)
    return rx < ry ? -1 : 1;
  return strverscmp(x->path, y->path);
}

static const char *clock_text(enum gw_kineto_clock c) {
  switch (c) {
  case GW_KINETO_CLOCK_RELATIVE:
    return "ts + baseTimeNanoseconds";
  case GW_KINETO_CLOCK_ABSOLUTE:
    return "ts as epoch microseconds";
  default:
    return "unknown epoch: times kept as written";
  }
}

static gw_status kineto_meta(struct gw_import_sink *sink, int i, const struct rank_input *r, struct gw_err *err) {
  char key[64];
  gw_status rc = GW_OK;
#define META(name, ...)                                                                                                \
  do {                                                                                                                 \
    snprintf(key, sizeof key, "input.%d." name, i);                                                                    \
    if (!rc)                                                                                                           \
      rc = gw_sink_metaf(sink, err, key, __VA_ARGS__);                                                                 \
  } while (0)
  META("file", "%s", r->src.path ? r->src.path : r->src.name);
  META("format", "kineto");
  META("pid", "%" PRId64, r->info.pid);
  if (r->info.has_rank)
    META("rank", "%" PRId64, r->info.rank);
  META("events", "%" PRIu64, r->info.events);
  META("kernel_events", "%" PRIu64, r->info.kernel_events);
  META("ac2g_flows", "%" PRIu64, r->info.ac2g_flows);
  META("clock", "%s", clock_text(r->info.clock));
  if (r->info.has_base)
    META("base_time_ns", "%" PRId64, r->info.base_ns);
  if (r->info.cupti_version)
    META("cupti_version", "%" PRId64, r->info.cupti_version);
  if (r->info.cuda_driver_version)
    META("cuda_driver_version", "%" PRId64, r->info.cuda_driver_version);
  if (r->info.skipped_no_time)
    META("skipped_without_time", "%" PRIu64, r->info.skipped_no_time);
#undef META
  return rc;
}

/* The headers of the Kineto traces, before any recording is made (a file
 * that is no trace is refused without one): ranks decide the order, so GPU
 * numbering and the rank whose steps fill the step table do not depend on
 * file names. */
static gw_status prescan_kineto(struct rank_input *inputs, int n, struct gw_err *err) {
  gw_status rc = GW_OK;
  for (int i = 0; i < n && !rc; i++) {
    struct gw_input in;
    if ((rc = open_source(&inputs[i].src, &in, err)))
      break;
    rc = gw_kineto_prescan(&in, &inputs[i].info, err);
    gw_input_close(&in);
  }
  if (rc)
    return rc;
  qsort(inputs, (size_t)n, sizeof *inputs, rank_order);
  for (int i = 0; i < n; i++)
    if (inputs[i].src.path)
      inputs[i].src.path = inputs[i].path; /* the structs moved */
  for (int i = 1; i < n; i++)
    if (inputs[i].info.has_rank && inputs[i - 1].info.has_rank && inputs[i].info.rank == inputs[i - 1].info.rank) {
      gw_err_set(err, _("%s and %s are both rank %" PRId64 ": one trace per rank, please"), inputs[i - 1].path,
                 inputs[i].path, inputs[i].info.rank);
      return GW_EINPUT;
    }
  return GW_OK;
}

/* The traces prescan_kineto ordered, into the sink. */
static gw_status import_kineto(struct rank_input *inputs, int n, struct gw_import_sink *sink,
                               const struct gw_import_opts *opts, struct gw_import_summary *sum, struct gw_err *err) {
  gw_status rc = GW_OK;
  uint64_t kernel_events = 0;
  int64_t world = 0;
  for (int i = 0; i < n && !rc; i++) {
    struct rank_input *r = &inputs[i];
    struct gw_input in;
    if ((rc = open_source(&r->src, &in, err)))
      break;
    struct gw_kineto_opts ko = {.input_index = i,
                                .write_steps = i == 0,
                                .progress = opts ? opts->progress : NULL,
                                .progress_ctx = opts ? opts->progress_ctx : NULL};
    rc = gw_kineto_import(&in, sink, &ko, &r->info, err);
    sum->input_bytes += in.total_bytes;
    gw_input_close(&in);
    if (!rc)
      rc = kineto_meta(sink, i, r, err);
    kernel_events += r->info.kernel_events;
    if (r->info.world_size > world)
      world = r->info.world_size;
    if (r->info.clock == GW_KINETO_CLOCK_UNKNOWN)
      add_note(sum,
               _("%s: no baseTimeNanoseconds and small ts values: times are not "
                 "wall-clock times"),
               r->path);
  }
  if (rc)
    return rc;
  int ranks = 0;
  for (int i = 0; i < n; i++)
    ranks += inputs[i].info.has_rank;
  sum->ranks = ranks ? ranks : 1;
  if (!rc)
    rc = gw_sink_metaf(sink, err, "kineto_kernel_events", "%" PRIu64, kernel_events);
  if (!rc)
    rc = gw_sink_metaf(sink, err, "ranks", "%d", sum->ranks);
  if (!rc && world > 0)
    rc = gw_sink_metaf(sink, err, "world_size", "%" PRId64, world);
  if (!rc && inputs[0].info.backend[0])
    rc = gw_sink_meta(sink, "distributed_backend", inputs[0].info.backend, err);
  if (!rc && inputs[0].info.nccl_version[0])
    rc = gw_sink_meta(sink, "nccl_version", inputs[0].info.nccl_version, err);
  if (!rc)
    rc = gw_sink_meta(sink, "steps_from_input", "0", err);
  if (!rc && world > n)
    add_note(sum, _("the traces are from %d of %" PRId64 " ranks"), n, world);
  sum->files = n;
  return rc;
}

/* The Kineto traces in a directory, in name order; other files are left
 * out with a note. */
static gw_status list_rank_files(const char *dir, struct rank_input **out, int *count, struct gw_import_summary *sum,
                                 struct gw_err *err) {
  DIR *d = opendir(dir);
  if (!d) {
    gw_err_set(err, _("%s: cannot read the directory: %s"), dir, strerror(errno));
    return GW_EINPUT;
  }
  struct rank_input *list = NULL;
  int n = 0, cap = 0, ignored = 0;
  gw_status rc = GW_OK;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (de->d_name[0] == '.')
      continue;
    char path[PATH_MAX];
    if ((size_t)snprintf(path, sizeof path, "%s/%s", dir, de->d_name) >= sizeof path)
      continue;
    struct stat sb;
    if (stat(path, &sb) != 0 || !S_ISREG(sb.st_mode))
      continue;
    struct source src = {.path = path};
    enum gw_import_format fmt;
    int gz;
    struct gw_err ignore;
    if (sniff_source(&src, &fmt, &gz, &ignore) != GW_OK || fmt != GW_IMPORT_KINETO) {
      ignored++;
      continue;
    }
    if (n >= MAX_RANK_FILES) {
      gw_err_set(err, _("%s: more than %d trace files"), dir, MAX_RANK_FILES);
      rc = GW_EINPUT;
      break;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      list = gw_xrealloc(list, (size_t)cap * sizeof *list);
    }
    memset(&list[n], 0, sizeof list[n]);
    gw_strlcpy(list[n].path, path, sizeof list[n].path);
    n++;
  }
  closedir(d);
  if (!rc && n == 0) {
    gw_err_set(err, _("%s: no Kineto/Chrome trace JSON files in this directory"), dir);
    rc = GW_EINPUT;
  }
  if (rc) {
    free(list);
    return rc;
  }
  for (int i = 0; i < n; i++)
    list[i].src.path = list[i].path;
  if (ignored)
    add_note(sum,
             gw_ngettext("%s: %d file that is not a Kineto trace was left out",
                         "%s: %d files that are not Kineto traces were left out", (unsigned long)ignored),
             dir, ignored);
  *out = list;
  *count = n;
  return GW_OK;
}

/* ---- nvidia-smi and nsys ---- */

static gw_status import_smi(const struct source *src, struct gw_import_sink *sink, const struct gw_import_opts *opts,
                            struct gw_import_summary *sum, struct gw_err *err) {
  struct gw_input in;
  gw_status rc = open_source(src, &in, err);
  if (rc)
    return rc;
  struct gw_smi_opts so = {0};
  if (opts) {
    so.interval_s = opts->smi_interval_s;
    so.start_ns = opts->smi_start_ns;
    so.progress = opts->progress;
    so.progress_ctx = opts->progress_ctx;
  }
  struct stat sb;
  if (src->path && stat(src->path, &sb) == 0)
    so.file_mtime_ns = (int64_t)sb.st_mtim.tv_sec * 1000000000LL + sb.st_mtim.tv_nsec;
  struct gw_smi_result res;
  rc = gw_smi_import(&in, sink, &so, &res, err);
  sum->input_bytes = in.total_bytes;
  gw_input_close(&in);
  if (rc)
    return rc;
  sum->files = 1;
  sum->events = res.lines;
  rc = gw_sink_meta(sink, "counters_only", "1", err);
  if (!rc)
    rc = gw_sink_meta(sink, "input.0.file", src->path ? src->path : src->name, err);
  if (!rc)
    rc = gw_sink_meta(sink, "input.0.format", res.kind == GW_SMI_DMON ? "nvidia-smi dmon" : "nvidia-smi query", err);
  if (!rc && res.columns_ignored[0])
    rc = gw_sink_meta(sink, "input.0.columns_not_imported", res.columns_ignored, err);
  if (!rc && res.times_assumed) {
    rc = gw_sink_meta(sink, "input.0.times_assumed", "1", err);
    add_note(sum,
             _("the log has no date/time columns: sample times were laid out "
               "from %s at %.3g s apart "
               "(record with dmon -o DT or query timestamp to have real times)"),
             opts && opts->smi_start_ns ? "--start" : "the file's modification time",
             opts && opts->smi_interval_s > 0 ? opts->smi_interval_s : 1.0);
  }
  if (res.columns_ignored[0])
    add_note(sum, _("columns with no recording counterpart, not imported: %s"), res.columns_ignored);
  return rc;
}

/* The export opened and checked before any recording is made: a file
 * that is no export is refused without one. */
static gw_status open_nsys(const struct source *src, struct gw_nsys_db **db, struct gw_err *err) {
  const char *name = src->path ? src->path : src->name;
  gw_status rc = src->path ? gw_nsys_db_open_file(db, src->path, name, err)
                           : gw_nsys_db_open_bytes(db, src->data, src->len, name, err);
  if (!rc && (rc = gw_nsys_db_check(*db, err))) {
    gw_nsys_db_close(*db);
    *db = NULL;
  }
  return rc;
}

/* The export open_nsys opened into the sink; closes db. */
static gw_status import_nsys(const struct source *src, struct gw_nsys_db *db, struct gw_import_sink *sink,
                             struct gw_import_summary *sum, struct gw_err *err) {
  const char *name = src->path ? src->path : src->name;
  gw_status rc;
  struct gw_nsys_result res;
  if ((rc = gw_nsys_import(db, name, sink, &res, err)) == GW_OK) {
    rc = gw_sink_meta(sink, "input.0.file", name, err);
    if (!rc)
      rc = gw_sink_meta(sink, "input.0.format", "nsys", err);
    if (!rc && res.schema_version[0])
      rc = gw_sink_meta(sink, "input.0.nsys_schema_version", res.schema_version, err);
    if (!rc && res.missing[0])
      rc = gw_sink_meta(sink, "input.0.nsys_missing", res.missing, err);
    if (res.missing[0])
      add_note(sum, _("not in this export (left empty): %s"), res.missing);
    if (res.time_relative)
      add_note(sum, _("no TARGET_INFO_SESSION_START_TIME: times count from the "
                      "session start, not the wall clock"));
  }
  gw_nsys_db_close(db);
  if (src->path) {
    struct stat sb;
    if (stat(src->path, &sb) == 0)
      sum->input_bytes = (uint64_t)sb.st_size;
  } else {
    sum->input_bytes = src->len;
  }
  sum->files = 1;
  return rc;
}

/* ---- entry points ---- */

static int finish_error(struct gw_err *e, char *errbuf, size_t errcap) {
  if (errbuf && errcap)
    gw_strlcpy(errbuf, e->msg, errcap);
  return GPUWHY_EXIT_INPUT;
}

/* image: when not NULL (output ":memory:"), the recording's bytes on success */
static int run_import(const struct source *src, int is_dir, enum gw_import_format want, const char *output,
                      const struct gw_import_opts *opts, struct gw_import_summary *sum_out, struct gw_store **store_out,
                      char *errbuf, size_t errcap) {
  struct gw_err err = {{0}};
  struct gw_import_summary sum_local;
  struct gw_import_summary *sum = sum_out ? sum_out : &sum_local;
  memset(sum, 0, sizeof *sum);
  enum gw_import_format fmt = GW_IMPORT_KINETO;
  int gz = 0;
  struct rank_input *inputs = NULL;
  int ninputs = 0;
  gw_status rc = GW_OK;
  if (is_dir) {
    rc = list_rank_files(src->path, &inputs, &ninputs, sum, &err);
  } else {
    rc = sniff_source(src, &fmt, &gz, &err);
    if (!rc && want != GW_IMPORT_UNKNOWN && fmt != want &&
        !(want == GW_IMPORT_SMI_DMON && fmt == GW_IMPORT_SMI_QUERY)) {
      gw_err_set(&err, _("%s: this is %s data, not %s"), src->path ? src->path : src->name, gw_import_format_name(fmt),
                 gw_import_format_name(want));
      rc = GW_EINPUT;
    }
    if (!rc && fmt == GW_IMPORT_NSYS && gz) {
      gw_err_set(&err, _("%s: a gzip-compressed SQLite file: decompress it first (gunzip)"), src->path);
      rc = GW_EINPUT;
    }
    if (!rc && fmt == GW_IMPORT_KINETO) {
      inputs = gw_xcalloc(1, sizeof *inputs);
      inputs[0].src = *src;
      gw_strlcpy(inputs[0].path, src->path ? src->path : src->name, sizeof inputs[0].path);
      inputs[0].src.path = src->path ? inputs[0].path : NULL;
      ninputs = 1;
    }
  }
  if (rc) {
    free(inputs);
    return finish_error(&err, errbuf, errcap);
  }
  sum->format = fmt;
  struct output out;
  struct gw_import_sink *sink = NULL;
  char source_name[48];
  snprintf(source_name, sizeof source_name, "import:%s",
           fmt == GW_IMPORT_SMI_DMON || fmt == GW_IMPORT_SMI_QUERY ? "nvidia-smi" : gw_import_format_name(fmt));
  /* a file of the user's at the output is never replaced without --force
   * (checked once the input is known to be a trace, so its errors come first) */
  if (fmt == GW_IMPORT_NSYS && src->path && gw_store_file_is_recording(src->path)) {
    gw_err_set(&err, "%s: already a gpuwhy recording: run gpuwhy report on it directly", src->path);
    rc = GW_EINPUT;
  } else if (!is_memory_path(output)) {
    rc = gw_store_check_replace(output, opts && opts->force, &err);
  }
  /* the input is read far enough to know it is one before a recording is made */
  struct gw_nsys_db *nsys_db = NULL;
  if (!rc && fmt == GW_IMPORT_KINETO)
    rc = prescan_kineto(inputs, ninputs, &err);
  if (!rc && fmt == GW_IMPORT_NSYS)
    rc = open_nsys(src, &nsys_db, &err);
  if (rc) {
    free(inputs);
    return finish_error(&err, errbuf, errcap);
  }
  if ((rc = output_begin(&out, output, &err)) || (rc = gw_sink_open(&sink, out.temp, source_name, &err))) {
    free(inputs);
    gw_nsys_db_close(nsys_db);
    return finish_error(&err, errbuf, errcap);
  }
  switch (fmt) {
  case GW_IMPORT_KINETO:
    rc = import_kineto(inputs, ninputs, sink, opts, sum, &err);
    break;
  case GW_IMPORT_NSYS:
    rc = import_nsys(src, nsys_db, sink, sum, &err);
    break;
  default:
    rc = import_smi(src, sink, opts, sum, &err);
    break;
  }
  free(inputs);
  if (!rc)
    rc = gw_sink_meta(sink, "import_format", gw_import_format_name(fmt), &err);
  if (!rc)
    rc = gw_sink_finish(sink, &err);
  if (!rc) {
    struct gw_import_counts *c = gw_sink_counts(sink);
    sum->kernels = c->kernels;
    sum->memcpys = c->memcpys;
    sum->memsets = c->memsets;
    sum->syncs = c->syncs;
    sum->api_calls = c->api_calls;
    sum->markers = c->markers;
    sum->steps = c->steps;
    sum->gpu_samples = c->gpu_samples;
    sum->skipped = c->skipped;
    if (!sum->events)
      sum->events = c->events;
    sum->gpus = gw_sink_gpu_count(sink);
    if (!sum->ranks)
      sum->ranks = 1;
  }
  if (!rc && store_out)
    *store_out = gw_sink_take_store(sink); /* the recording made in memory, open for reading */
  gw_sink_close(sink);
  if (!rc)
    rc = output_commit(&out, &err);
  if (rc) {
    output_abort(&out);
    return finish_error(&err, errbuf, errcap);
  }
  return GPUWHY_EXIT_OK;
}

int gw_import(const char *input, const char *output, const struct gw_import_opts *opts,
              struct gw_import_summary *summary, char *errbuf, size_t errcap) {
  struct stat sb;
  if (stat(input, &sb) != 0) {
    if (errbuf && errcap)
      snprintf(errbuf, errcap, "%s: %s", input, strerror(errno));
    return GPUWHY_EXIT_INPUT;
  }
  /* a pipe without a writer would block the read, a device never end it */
  if (!S_ISREG(sb.st_mode) && !S_ISDIR(sb.st_mode)) {
    if (errbuf && errcap)
      snprintf(errbuf, errcap, _("%s: not a regular file or a folder: nothing gpuwhy imports"), input);
    return GPUWHY_EXIT_INPUT;
  }
  struct source src = {.path = input, .name = input};
  return run_import(&src, S_ISDIR(sb.st_mode), GW_IMPORT_UNKNOWN, output, opts, summary, NULL, errbuf, errcap);
}

int gw_import_kineto_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                            size_t errcap) {
  struct source src = {.data = data, .len = len, .name = name ? name : "(buffer)"};
  return run_import(&src, 0, GW_IMPORT_KINETO, output, NULL, NULL, NULL, errbuf, errcap);
}

int gw_import_nsys_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                          size_t errcap) {
  struct source src = {.data = data, .len = len, .name = name ? name : "(buffer)"};
  return run_import(&src, 0, GW_IMPORT_NSYS, output, NULL, NULL, NULL, errbuf, errcap);
}

int gw_import_smi_buffer(const void *data, size_t len, const char *name, const char *output, char *errbuf,
                         size_t errcap) {
  struct source src = {.data = data, .len = len, .name = name ? name : "(buffer)"};
  return run_import(&src, 0, GW_IMPORT_SMI_DMON, output, NULL, NULL, NULL, errbuf, errcap);
}

int gw_import_buffer_store(enum gw_import_format format, const void *data, size_t len, const char *name,
                           struct gw_store **store, char *errbuf, size_t errcap) {
  struct source src = {.data = data, .len = len, .name = name ? name : "(buffer)"};
  *store = NULL;
  return run_import(&src, 0, format, ":memory:", NULL, NULL, store, errbuf, errcap);
}
