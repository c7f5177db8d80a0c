/* A recording as Chrome Trace Event Format JSON for Perfetto.
 *
 * Processes in the trace: "gpuwhy analysis" (steps and the findings' time
 * ranges as slices), one per GPU (counters of SM activity, GPU-Util, power,
 * clock and PCIe; activity dips and kernel-log events), "host" (CPU and disk
 * counters) and, when the tracer ran, each traced process with one thread
 * per CUDA stream holding its kernels, copies and memsets, one for its
 * synchronising waits and its NVTX ranges on their own threads. The pseudo
 * processes take ids above Linux's largest pid so they never meet a real one.
 *
 * Timestamps are microseconds after the recording's first instant (kept in
 * otherData.t0_unix_ns), written from integer nanoseconds so nothing is lost
 * to floating point. Every track's events come out in time order: each
 * series is written in one pass, and the tracer tables are read in a single
 * query ordered by start time, so memory stays flat for any number of rows. */
#include <gpuwhy/export.h>
#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "core/i18n.h"
#include "analysis/activity_dips.h"
#include "render/escape.h"
#include "render/class_text.h"
#include "render/evidence_text.h"
#include "render/report_render.h"
#include "render/run_facts.h"
#include "store/store.h"
#include "store/store_iter.h"

#define PID_ANALYSIS 2000000001LL
#define PID_HOST 2000000002LL
#define PID_GPU0 2000000100LL
#define TID_SYNC 2000000000LL /* in a traced process: its synchronising waits */
#define TID_GPU_DIPS 1
#define TID_GPU_EVENTS 2
#define TID_STEPS 1
#define TID_FINDINGS 100 /* finding i, lane k: TID_FINDINGS + 10 * i + k */
#define MAX_LANES 8

struct pf {
  FILE *out;
  int64_t base_ns;
  unsigned long long nevents;
};

static void ts(FILE *out, int64_t d_ns) {
  if (d_ns < 0) {
    fputc('-', out);
    d_ns = -d_ns;
  }
  fprintf(out, "%lld.%03lld", (long long)(d_ns / 1000), (long long)(d_ns % 1000));
}

/* Opens an event object: name, ph, ts, pid, tid. The caller adds fields and
 * closes it with end_event. */
static void begin_event(struct pf *p, const char *ph, const char *name, long long pid, long long tid, int64_t t_ns) {
  fputs(p->nevents ? ",\n{\"name\":" : "\n{\"name\":", p->out);
  gw_json_write_utf8(p->out, name);
  fprintf(p->out, ",\"ph\":\"%s\",\"ts\":", ph);
  ts(p->out, t_ns - p->base_ns);
  fprintf(p->out, ",\"pid\":%lld,\"tid\":%lld", pid, tid);
  p->nevents++;
}

static void end_event(struct pf *p) {
  fputc('}', p->out);
}

static void dur(struct pf *p, int64_t start_ns, int64_t end_ns) {
  fputs(",\"dur\":", p->out);
  ts(p->out, end_ns > start_ns ? end_ns - start_ns : 0);
}

static void meta(struct pf *p, const char *what, long long pid, long long tid, const char *key, const char *name,
                 long long sort_index) {
  begin_event(p, "M", what, pid, tid, p->base_ns);
  fprintf(p->out, ",\"args\":{\"%s\":", key);
  if (name)
    gw_json_write_utf8(p->out, name);
  else
    fprintf(p->out, "%lld", sort_index);
  fputs("}", p->out);
  end_event(p);
}

static void name_process(struct pf *p, long long pid, const char *name, long long sort_index) {
  meta(p, "process_name", pid, 0, "name", name, 0);
  meta(p, "process_sort_index", pid, 0, "sort_index", NULL, sort_index);
}

static void name_thread(struct pf *p, long long pid, long long tid, const char *name) {
  meta(p, "thread_name", pid, tid, "name", name, 0);
}

/* One counter track: the series v (scaled) at t_ns, skipping unknown values. */
static void counter(struct pf *p, long long pid, const char *name, const char *arg, const int64_t *t_ns,
                    const double *v, size_t n, double scale) {
  if (!v)
    return;
  for (size_t i = 0; i < n; i++) {
    if (isnan(v[i]) || isinf(v[i]) || t_ns[i] < p->base_ns)
      continue;
    begin_event(p, "C", name, pid, 0, t_ns[i]);
    fprintf(p->out, ",\"args\":{\"%s\":%.6g}", arg, v[i] * scale);
    end_event(p);
  }
}

/* A metric's column as a counter track (unpacked for it, freed after). */
static void column_counter(struct pf *p, long long pid, const char *name, const char *arg, const int64_t *t_ns,
                           const struct gw_value_column *c, size_t n, double scale) {
  double *v = gw_column_range(c, 0, n);
  counter(p, pid, name, arg, t_ns, v, n, scale);
  free(v);
}

static void gpu_tracks(struct pf *p, const struct gw_recording *rec, int gi, const struct gw_run_facts *facts) {
  const struct gw_gpu_series *g = &rec->gpus[gi];
  long long pid = PID_GPU0 + g->gpu;
  const struct gw_gpu_facts *gf = facts ? gw_run_facts_gpu(facts, g->gpu) : NULL;
  char name[160];
  snprintf(name, sizeof name, "GPU %d %s", g->gpu, g->name[0] ? g->name : (gf ? gf->name : ""));
  name_process(p, pid, name, 10 + g->gpu);
  name_thread(p, pid, TID_GPU_DIPS, "activity dips");
  name_thread(p, pid, TID_GPU_EVENTS, "kernel log and driver events");
  column_counter(p, pid, "SM activity", "pct", g->t_ns, g->m[GW_M_sm_active_pct], g->n, 1);
  column_counter(p, pid, "GPU-Util", "pct", g->t_ns, g->m[GW_M_util_gpu_pct], g->n, 1);
  column_counter(p, pid, "Tensor activity", "pct", g->t_ns, g->m[GW_M_tensor_active_pct], g->n, 1);
  column_counter(p, pid, "Power", "W", g->t_ns, g->m[GW_M_power_mw], g->n, 1e-3);
  column_counter(p, pid, "Power limit", "W", g->ht_ns, g->h[GW_M_power_limit_mw], g->nh, 1e-3);
  column_counter(p, pid, "SM clock", "MHz", g->t_ns, g->m[GW_M_sm_clock_mhz], g->n, 1);
  column_counter(p, pid, "Clock event reasons", "bits", g->t_ns, g->m[GW_M_clock_reasons], g->n, 1);
  column_counter(p, pid, "PCIe rx", "GBps", g->t_ns, g->m[GW_M_pcie_rx_bps], g->n, 1e-9);
  column_counter(p, pid, "PCIe tx", "GBps", g->t_ns, g->m[GW_M_pcie_tx_bps], g->n, 1e-9);
  column_counter(p, pid, "Memory used", "GiB", g->t_ns, g->m[GW_M_mem_used_bytes], g->n, 1.0 / 1073741824.0);

  /* dips as slices: one per run of flagged ticks */
  unsigned char *dips = gw_activity_dip_flags(g);
  int64_t dt = gw_typical_dt_ns(g);
  for (size_t i = 0; dips && i < g->n;) {
    if (!dips[i]) {
      i++;
      continue;
    }
    size_t j = i;
    while (j + 1 < g->n && dips[j + 1])
      j++;
    if (g->t_ns[i] >= p->base_ns) {
      begin_event(p, "X", "dip", pid, TID_GPU_DIPS, g->t_ns[i]);
      dur(p, g->t_ns[i], g->t_ns[j] + dt);
      end_event(p);
    }
    i = j + 1;
  }
  free(dips);
  for (size_t e = 0; e < rec->nevents; e++) {
    const struct gw_event_row *ev = &rec->events[e];
    if (ev->gpu != g->gpu || ev->t_ns < p->base_ns)
      continue;
    char label[64];
    snprintf(label, sizeof label, "%s %lld", ev->kind, (long long)ev->code);
    begin_event(p, "i", label, pid, TID_GPU_EVENTS, ev->t_ns);
    fputs(",\"s\":\"t\",\"args\":{\"message\":", p->out);
    gw_json_write_utf8(p->out, ev->message);
    fputs("}", p->out);
    end_event(p);
  }
}

static void host_tracks(struct pf *p, const struct gw_recording *rec) {
  const struct gw_host_series *h = &rec->host;
  if (h->n == 0)
    return;
  name_process(p, PID_HOST, "host", 5);
  counter(p, PID_HOST, "CPU busy, all cores", "pct", h->t_ns, h->cpu_busy_pct, h->n, 1);
  counter(p, PID_HOST, "CPU iowait", "pct", h->t_ns, h->iowait_pct, h->n, 1);
  counter(p, PID_HOST, "Main process CPU", "pct_of_core", h->t_ns, h->main_cpu_pct, h->n, 1);
  counter(p, PID_HOST, "Busiest loader worker CPU", "pct_of_core", h->t_ns, h->worker_cpu_max_pct, h->n, 1);
  counter(p, PID_HOST, "Loader workers", "count", h->t_ns, h->workers, h->n, 1);
  counter(p, PID_HOST, "Disk util, busiest", "pct", h->t_ns, h->disk_util_max_pct, h->n, 1);
  counter(p, PID_HOST, "Disk read", "MBps", h->t_ns, h->disk_read_bps, h->n, 1e-6);
  counter(p, PID_HOST, "Disk write", "MBps", h->t_ns, h->disk_write_bps, h->n, 1e-6);
}

static int cmp_evidence(const void *a, const void *b) {
  const struct gw_evidence *x = *(const struct gw_evidence *const *)a, *y = *(const struct gw_evidence *const *)b;
  if (x->t0_ns != y->t0_ns)
    return (x->t0_ns > y->t0_ns) - (x->t0_ns < y->t0_ns);
  return (x->t1_ns > y->t1_ns) - (x->t1_ns < y->t1_ns);
}

static void analysis_tracks(struct pf *p, const struct gw_recording *rec, const struct gw_diagnosis *dx) {
  name_process(p, PID_ANALYSIS, "gpuwhy analysis", 1);
  if (rec->nsteps) {
    name_thread(p, PID_ANALYSIS, TID_STEPS, "steps (marked by the program)");
    for (size_t i = 0; i < rec->nsteps; i++) {
      const struct gw_step_row *s = &rec->steps[i];
      if (s->start_ns < p->base_ns)
        continue;
      char label[48];
      snprintf(label, sizeof label, "step %lld", (long long)s->step);
      begin_event(p, "X", label, PID_ANALYSIS, TID_STEPS, s->start_ns);
      dur(p, s->start_ns, s->end_ns);
      end_event(p);
    }
  }
  /* A finding's evidence ranges may overlap; lanes keep each track's slices
   * disjoint and in order. */
  for (int i = 0; i < dx->nfindings; i++) {
    const struct gw_finding *f = &dx->findings[i];
    const struct gw_evidence *ev[GW_MAX_EVIDENCE];
    int n = 0;
    for (int e = 0; e < f->nevidence; e++)
      if (f->evidence[e].t1_ns > f->evidence[e].t0_ns && f->evidence[e].t0_ns >= p->base_ns)
        ev[n++] = &f->evidence[e];
    qsort(ev, (size_t)n, sizeof ev[0], cmp_evidence);
    int64_t lane_end[MAX_LANES];
    int nlanes = 0;
    for (int k = 0, next; k < n; k = next) {
      /* evidence lines over the same range make one slice */
      next = k + 1;
      while (next < n && ev[next]->t0_ns == ev[k]->t0_ns && ev[next]->t1_ns == ev[k]->t1_ns)
        next++;
      int lane = 0;
      while (lane < nlanes && lane_end[lane] > ev[k]->t0_ns)
        lane++;
      if (lane == MAX_LANES)
        continue;
      if (lane == nlanes) {
        char tname[96];
        snprintf(tname, sizeof tname, lane ? "finding %d: %s (%d)" : "finding %d: %s", i + 1, f->class_id, lane + 1);
        name_thread(p, PID_ANALYSIS, TID_FINDINGS + 10 * i + lane, tname);
        nlanes++;
      }
      lane_end[lane] = ev[k]->t1_ns;
      begin_event(p, "X", gw_class_title(f->class_id, 1), PID_ANALYSIS, TID_FINDINGS + 10 * i + lane, ev[k]->t0_ns);
      dur(p, ev[k]->t0_ns, ev[k]->t1_ns);
      fputs(",\"cat\":", p->out);
      gw_json_write_utf8(p->out, f->class_id);
      fprintf(p->out, ",\"args\":{\"share_of_lost\":%.4f,\"confidence\":%.2f,\"evidence\":[", f->share_of_lost,
              f->confidence);
      for (int e = k; e < next; e++) {
        if (e > k)
          fputc(',', p->out);
        char line[GW_TEXT];
        gw_evidence_text(ev[e], 1, line, sizeof line);
        gw_json_write_utf8(p->out, line);
      }
      fputs("]}", p->out);
      end_event(p);
    }
  }
}

static const char *copy_kind_name(int kind) {
  /* CUPTI_ACTIVITY_MEMCPY_KIND_* */
  static const char *const names[] = {"Memcpy",      "Memcpy HtoD", "Memcpy DtoH", "Memcpy HtoA",
                                      "Memcpy AtoH", "Memcpy AtoA", "Memcpy AtoD", "Memcpy DtoA",
                                      "Memcpy DtoD", "Memcpy HtoH", "Memcpy PtoP"};
  return kind >= 0 && kind < (int)(sizeof names / sizeof names[0]) ? names[kind] : "Memcpy";
}

/* Threads seen so far, to name each once (streams, syncs, NVTX threads). */
struct seen {
  long long *key; /* pid << 32 ^ tid hashed as a plain list: few distinct threads */
  size_t n, cap;
};

static int first_sight(struct seen *s, long long pid, long long tid) {
  for (size_t i = 0; i < s->n; i += 2)
    if (s->key[i] == pid && s->key[i + 1] == tid)
      return 0;
  if (s->n + 2 > s->cap) {
    s->cap = s->cap ? s->cap * 2 : 64;
    s->key = gw_xrealloc(s->key, s->cap * sizeof *s->key);
  }
  s->key[s->n++] = pid;
  s->key[s->n++] = tid;
  return 1;
}

/* The args of each exported kind. */
static void kernel_args(FILE *out, const struct gw_store_trace_row *r) {
  fprintf(out,
          "\"device\":%lld,\"grid\":[%lld,%lld,%lld],\"block\":[%lld,%lld,%lld],\"registers\":%lld,"
          "\"shared_mem_bytes\":%lld,\"correlation\":%lld",
          (long long)r->device, (long long)r->grid[0], (long long)r->grid[1], (long long)r->grid[2],
          (long long)r->block[0], (long long)r->block[1], (long long)r->block[2], (long long)r->regs,
          (long long)r->shmem_bytes, (long long)r->correlation);
}
static void memcpy_args(FILE *out, const struct gw_store_trace_row *r) {
  fprintf(out, "\"device\":%lld,\"bytes\":%lld,\"async\":%lld,\"correlation\":%lld", (long long)r->device,
          (long long)r->bytes, (long long)r->async, (long long)r->correlation);
}
static void memset_args(FILE *out, const struct gw_store_trace_row *r) {
  fprintf(out, "\"device\":%lld,\"bytes\":%lld,\"correlation\":%lld", (long long)r->device, (long long)r->bytes,
          (long long)r->correlation);
}
static void sync_args(FILE *out, const struct gw_store_trace_row *r) {
  fprintf(out, "\"sync_type\":%lld,\"stream\":%lld", (long long)r->flag, (long long)r->lane);
}

/* How each kind of traced record is drawn: one row per kind of
 * enum gw_store_trace_kind. */
enum slice_name {
  NAME_OF_ROW,       /* the kernel's or range's name, else `unnamed` */
  NAME_OF_COPY_KIND, /* "Memcpy HtoD", ... */
  NAME_FIXED,        /* always `unnamed` */
};
static const struct trace_style {
  const char *category;
  const char *flagged_category; /* when the row's flag is set (an NCCL kernel), or NULL */
  enum slice_name naming;
  const char *unnamed;
  long long fixed_tid; /* one thread for all of a process's rows of the kind, or 0: a thread per lane */
  const char *thread_prefix, *thread_suffix; /* the thread's name: prefix, lane (unless fixed_tid), suffix */
  int flag_is_instant;                       /* a set flag makes the row a mark */
  void (*args)(FILE *out, const struct gw_store_trace_row *r);
} TRACE_STYLES[] = {
    [GW_STORE_TRACE_KERNEL] = {"kernel", "nccl", NAME_OF_ROW, "kernel", 0, "stream ", "", 0, kernel_args},
    [GW_STORE_TRACE_MEMCPY] = {"memcpy", NULL, NAME_OF_COPY_KIND, NULL, 0, "stream ", "", 0, memcpy_args},
    [GW_STORE_TRACE_MEMSET] = {"memset", NULL, NAME_FIXED, "Memset", 0, "stream ", "", 0, memset_args},
    [GW_STORE_TRACE_SYNC] = {"sync", NULL, NAME_FIXED, "synchronize", TID_SYNC, "host waits (synchronize)", "", 0,
                             sync_args},
    [GW_STORE_TRACE_MARKER] = {"nvtx", NULL, NAME_OF_ROW, "range", 0, "thread ", " (NVTX)", 1, NULL},
};

/* The tracer's records, one stream ordered by start (store_iter.h). */
static void trace_tracks(struct pf *p, struct gw_store *st) {
  struct gw_store_iter *it = gw_store_iter_trace(st);
  if (!it)
    return;
  struct seen procs = {0}, threads = {0};
  struct gw_store_trace_row r;
  while (gw_store_next_trace(it, &r)) {
    const struct trace_style *style = &TRACE_STYLES[r.kind];
    long long pid = r.pid;
    int64_t start = r.start_ns;
    if (start < p->base_ns)
      continue;
    long long tid = style->fixed_tid ? style->fixed_tid : r.lane;
    if (first_sight(&procs, pid, -1)) {
      char name[64];
      snprintf(name, sizeof name, "traced process %lld", pid);
      name_process(p, pid, name, 100);
    }
    if (first_sight(&threads, pid, tid)) {
      char name[64];
      if (style->fixed_tid)
        snprintf(name, sizeof name, "%s%s", style->thread_prefix, style->thread_suffix);
      else
        snprintf(name, sizeof name, "%s%lld%s", style->thread_prefix, tid, style->thread_suffix);
      name_thread(p, pid, tid, name);
    }
    const char *name = style->naming == NAME_OF_COPY_KIND               ? copy_kind_name((int)r.flag)
                       : style->naming == NAME_OF_ROW && r.name != NULL ? r.name
                                                                        : style->unnamed;
    int instant = style->flag_is_instant && r.flag != 0;
    begin_event(p, instant ? "i" : "X", name, pid, tid, start);
    if (instant)
      fputs(",\"s\":\"t\"", p->out);
    else
      dur(p, start, r.end_ns);
    const char *cat = style->flagged_category && r.flag ? style->flagged_category : style->category;
    fprintf(p->out, ",\"cat\":\"%s\",\"args\":{", cat);
    if (style->args)
      style->args(p->out, &r);
    fputs("}", p->out);
    end_event(p);
  }
  gw_store_iter_close(it);
  free(procs.key);
  free(threads.key);
}

/* The earliest instant the trace shows: the run's start, the first sample,
 * the first traced record. Kernel-log history from before the run is left
 * out rather than stretching the trace back to boot. */
static int64_t first_instant(const struct gw_recording *rec, struct gw_store *st) {
  int64_t t = rec->started_ns;
  for (int i = 0; i < rec->ngpus; i++)
    if (rec->gpus[i].n && (!t || rec->gpus[i].t_ns[0] < t))
      t = rec->gpus[i].t_ns[0];
  if (rec->host.n && (!t || rec->host.t_ns[0] < t))
    t = rec->host.t_ns[0];
  int64_t k;
  /* a tracer clock far from the samples' would stretch the trace: ignore it beyond an hour */
  if (gw_store_trace_first_start(st, &k) && (!t || (k < t && t - k < 3600LL * 1000000000LL)))
    t = k;
  return t;
}

int gw_export_perfetto_file(const char *path, FILE *out, unsigned long long *nevents, char *errbuf, size_t errcap) {
  struct gw_err err = {{0}};
  struct gw_recording *rec = NULL;
  struct gw_diagnosis *dx = NULL;
  if (gw_recording_load(path, &rec, &err) != GW_OK || gw_diagnose(rec, &dx, &err) != GW_OK) {
    if (errbuf && errcap)
      gw_strlcpy(errbuf, err.msg, errcap);
    gw_diagnosis_free(dx);
    gw_recording_free(rec);
    return GPUWHY_EXIT_INPUT;
  }
  struct gw_run_facts *facts = gw_xcalloc(1, sizeof *facts);
  struct gw_err ferr = {{0}};
  int have_facts = gw_run_facts_of(rec, facts, &ferr) == GW_OK;
  struct gw_store *st = rec->store; /* the trace's rows through the recording's own connection */
  struct pf p = {out, first_instant(rec, st), 0};

  fputs("{\"traceEvents\":[", out);
  analysis_tracks(&p, rec, dx);
  for (int i = 0; i < rec->ngpus; i++)
    gpu_tracks(&p, rec, i, have_facts ? facts : NULL);
  host_tracks(&p, rec);
  trace_tracks(&p, st);
  fputs("\n],\n\"displayTimeUnit\":\"ms\",\n\"otherData\":{\"generator\":", out);
  char gen[64];
  snprintf(gen, sizeof gen, "gpuwhy %s", gw_version());
  gw_json_write_utf8(out, gen);
  fputs(",\"recording\":", out);
  gw_json_write_utf8(out, gw_render_basename(path));
  fprintf(out, ",\"t0_unix_ns\":%lld,\"verdict\":", (long long)p.base_ns);
  gw_json_write_utf8(out, dx->verdict);
  if (have_facts) {
    fputs(",\"command\":", out);
    gw_json_write_utf8(out, facts->command);
  }
  fputs("}}\n", out);
  if (nevents)
    *nevents = p.nevents;
  free(facts);
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  return GPUWHY_EXIT_OK;
}
