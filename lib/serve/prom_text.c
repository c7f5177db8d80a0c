#include "serve/prom_text.h"

#include <gpuwhy/gpuwhy.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/diagnosis.h"
#include "analysis/ledger.h"
#include "analysis/mfu.h"
#include "render/mfu_facts.h"
#include "analysis/rules.h"
#include "analysis/thresholds.h"
#include "render/escape.h"
#include "render/run_facts.h"
#include "serve/prom_names.h"
#include "sources/clock_reasons.h"
#include "store/store.h"
#include "store/store_iter.h"

/* A reading older than this before the GPU's newest tick is stale: the
 * metric is left out rather than shown as if current. Health metrics are
 * read once a second, some only every 30 s. */
#define FRESH_FAST_NS 10000000000LL
#define FRESH_SLOW_NS 65000000000LL

void gw_prom_state_init(struct gw_prom_state *st, int64_t started_ns, const char *mode, double window_s) {
  memset(st, 0, sizeof *st);
  st->started_ns = started_ns;
  st->events_seen_ns = started_ns;
  st->mode = mode;
  st->window_s = window_s;
}

/* Metric names and HELP texts are English in every language: dashboards,
 * alert rules and scrapers read them (deploy/ has both). */
static void family(FILE *out, const char *name, const char *type, const char *help) {
  char esc[600];
  gw_prom_help_escape(esc, sizeof esc, help);
  fprintf(out, "# HELP %s %s\n# TYPE %s %s\n", name, esc, name, type);
}

static void value(FILE *out, const char *name, const char *labels, double v) {
  if (isnan(v) || isinf(v))
    return;
  if (labels && labels[0])
    fprintf(out, "%s{%s} %.10g\n", name, labels, v);
  else
    fprintf(out, "%s %.10g\n", name, v);
}

/* label="value" with the value escaped; appended to buf at *len. */
static void label(char *buf, size_t cap, size_t *len, const char *key, const char *v) {
  char esc[400];
  if (gw_prom_label_escape(esc, sizeof esc, v ? v : "") < 0)
    esc[0] = '\0';
  int n = snprintf(buf + *len, cap - *len, "%s%s=\"%s\"", *len ? "," : "", key, esc);
  if (n > 0 && (size_t)n < cap - *len)
    *len += (size_t)n;
}

struct gpu_labels {
  int gpu;
  char text[600];
};

/* The gpu, uuid and name labels of every GPU in the window. */
static void gpu_labels(const struct gw_recording *rec, const struct gw_run_facts *facts, struct gpu_labels *out) {
  for (int i = 0; i < rec->ngpus; i++) {
    const struct gw_gpu_facts *gf = gw_run_facts_gpu(facts, rec->gpus[i].gpu);
    char idx[16];
    snprintf(idx, sizeof idx, "%d", rec->gpus[i].gpu);
    size_t len = 0;
    out[i].gpu = rec->gpus[i].gpu;
    out[i].text[0] = '\0';
    label(out[i].text, sizeof out[i].text, &len, "gpu", idx);
    label(out[i].text, sizeof out[i].text, &len, "uuid", gf ? gf->uuid : "");
    label(out[i].text, sizeof out[i].text, &len, "name", rec->gpus[i].name[0] ? rec->gpus[i].name : "");
  }
}

static int64_t newest_tick(const struct gw_gpu_series *g) {
  return g->n ? g->t_ns[g->n - 1] : 0;
}

/* The newest known value of a series no older than fresh_ns before ref. */
static double latest(const int64_t *t, const struct gw_value_column *c, size_t n, int64_t ref, int64_t fresh_ns) {
  for (size_t i = n; c && i-- > 0;) {
    if (t[i] < ref - fresh_ns)
      break;
    if (!isnan(gw_column_at(c, i)))
      return gw_column_at(c, i);
  }
  return NAN;
}

static void gpu_metrics(FILE *out, const struct gw_recording *rec, const struct gpu_labels *lab) {
  for (int m = 0; m < GW_GPU_NMETRICS; m++) {
    struct gw_prom_metric pm;
    if (gw_prom_gpu_metric(m, &pm))
      continue;
    int slow = gw_gpu_metric_info[m].table == GW_TABLE_SLOW;
    int header = 0;
    for (int i = 0; i < rec->ngpus; i++) {
      const struct gw_gpu_series *g = &rec->gpus[i];
      double v = slow ? latest(g->ht_ns, g->h[m], g->nh, newest_tick(g), FRESH_SLOW_NS)
                      : latest(g->t_ns, g->m[m], g->n, newest_tick(g), FRESH_FAST_NS);
      if (isnan(v))
        continue;
      if (!header) {
        family(out, pm.name, pm.type, pm.help);
        header = 1;
      }
      value(out, pm.name, lab[i].text, v * pm.scale);
    }
  }
  /* the reasons bitmask one reason at a time, which alert rules can match */
  int header = 0;
  for (int i = 0; i < rec->ngpus; i++) {
    const struct gw_gpu_series *g = &rec->gpus[i];
    double r = latest(g->t_ns, g->m[GW_M_clock_reasons], g->n, newest_tick(g), FRESH_FAST_NS);
    if (isnan(r))
      continue;
    if (!header) {
      family(out, "gpuwhy_gpu_clock_event_reason_active", "gauge",
             "1 while the driver reports this clock event reason for the GPU (sw_power_cap is the board's own "
             "limit; hw_slowdown, the thermal reasons and hw_power_brake are worth an alert)");
      header = 1;
    }
    for (size_t k = 0; k < gw_clock_reason_nnames; k++) {
      const struct gw_clock_reason_name *reason = &gw_clock_reason_names[k];
      char l[700];
      snprintf(l, sizeof l, "%s,reason=\"%s\"", lab[i].text, reason->label);
      value(out, "gpuwhy_gpu_clock_event_reason_active", l, ((uint64_t)r & reason->bit) ? 1 : 0);
    }
  }
  family(out, "gpuwhy_gpu_last_sample_timestamp_seconds", "gauge",
         "Unix time of the GPU's newest sample in the window (a GPU that stops answering stops advancing)");
  for (int i = 0; i < rec->ngpus; i++)
    if (rec->gpus[i].n)
      value(out, "gpuwhy_gpu_last_sample_timestamp_seconds", lab[i].text, (double)newest_tick(&rec->gpus[i]) / 1e9);
}

static int state_gpu(struct gw_prom_state *st, int gpu) {
  for (int i = 0; i < st->ngpus; i++)
    if (st->gpus[i].gpu == gpu)
      return i;
  if (st->ngpus >= GW_PROM_MAX_GPUS)
    return -1;
  memset(&st->gpus[st->ngpus], 0, sizeof st->gpus[0]);
  st->gpus[st->ngpus].gpu = gpu;
  return st->ngpus++;
}

/* Count the Xid and GPU-lost events that arrived since the last build. */
static void count_events(struct gw_prom_state *st, struct gw_store *store) {
  struct gw_store_iter *it = gw_store_iter_gpu_faults(store, st->events_seen_ns);
  struct gw_store_fault_row ev;
  while (gw_store_next_fault(it, &ev)) {
    int64_t t = ev.t_ns;
    const char *kind = ev.kind;
    int k = ev.gpu >= 0 ? state_gpu(st, ev.gpu) : -1;
    if (kind && strcmp(kind, "xid") == 0) {
      if (k >= 0) {
        st->gpus[k].xid_total++;
        st->gpus[k].last_xid = ev.code;
      } else {
        st->xid_unattributed++;
      }
    } else if (k >= 0) {
      st->gpus[k].lost = 1;
    }
    if (t > st->events_seen_ns)
      st->events_seen_ns = t;
  }
  gw_store_iter_close(it);
}

static void gpu_health(FILE *out, struct gw_prom_state *st, struct gw_store *store, const struct gw_recording *rec,
                       const struct gpu_labels *lab) {
  count_events(st, store);
  static const struct {
    const char *name, *type, *help;
  } fam[] = {
      {"gpuwhy_gpu_xid_events_total", "counter",
       "Xid errors the kernel log reported for this GPU since the exporter started"},
      {"gpuwhy_gpu_last_xid", "gauge", "Code of the newest Xid error of this GPU since the exporter started, 0 none"},
      {"gpuwhy_gpu_lost", "gauge", "1 when the driver stopped answering for this GPU (it fell off the bus)"},
  };
  for (size_t f = 0; f < sizeof fam / sizeof fam[0]; f++) {
    family(out, fam[f].name, fam[f].type, fam[f].help);
    for (int i = 0; i < rec->ngpus; i++) {
      int k = state_gpu(st, rec->gpus[i].gpu);
      if (k < 0)
        continue;
      value(out, fam[f].name, lab[i].text,
            f == 0   ? st->gpus[k].xid_total
            : f == 1 ? (double)st->gpus[k].last_xid
                     : st->gpus[k].lost);
    }
  }
  family(out, "gpuwhy_xid_events_unattributed_total", "counter",
         "Xid errors whose PCI address matched none of the GPUs, since the exporter started");
  value(out, "gpuwhy_xid_events_unattributed_total", "", st->xid_unattributed);

  /* compute processes seen in the newest process lists (read about once a
   * second: 2.5 s back from the newest sample holds the last one or two) */
  double procs[GW_PROM_MAX_GPUS] = {0}, mem[GW_PROM_MAX_GPUS] = {0};
  struct gw_store_iter *it = gw_store_iter_gpu_procs_recent(store, 2500000000LL);
  struct gw_store_gpu_procs_row pr;
  while (gw_store_next_gpu_procs(it, &pr))
    for (int i = 0; i < rec->ngpus && i < GW_PROM_MAX_GPUS; i++)
      if (rec->gpus[i].gpu == pr.gpu) {
        procs[i] = pr.processes;
        mem[i] = pr.mem_used_bytes;
      }
  gw_store_iter_close(it);
  family(out, "gpuwhy_gpu_processes", "gauge", "Compute processes the driver lists on this GPU");
  for (int i = 0; i < rec->ngpus && i < GW_PROM_MAX_GPUS; i++)
    if (rec->gpus[i].n)
      value(out, "gpuwhy_gpu_processes", lab[i].text, procs[i]);
  family(out, "gpuwhy_gpu_processes_memory_used_bytes", "gauge",
         "Device memory used by the compute processes on this GPU, in bytes");
  for (int i = 0; i < rec->ngpus && i < GW_PROM_MAX_GPUS; i++)
    if (rec->gpus[i].n && procs[i] > 0)
      value(out, "gpuwhy_gpu_processes_memory_used_bytes", lab[i].text, mem[i]);
}

static void host_metrics(FILE *out, struct gw_store *store) {
  static const struct {
    const char *col, *name, *help;
    double scale;
  } cols[] = {
      {"cpu_busy_pct", "gpuwhy_host_cpu_busy_ratio", "Share of all cores' time busy over the last sample interval",
       0.01},
      {"cpu_user_pct", "gpuwhy_host_cpu_user_ratio", "Share of all cores' time in user mode", 0.01},
      {"cpu_system_pct", "gpuwhy_host_cpu_system_ratio", "Share of all cores' time in the kernel", 0.01},
      {"cpu_iowait_pct", "gpuwhy_host_cpu_iowait_ratio", "Share of all cores' time idle while waiting for I/O", 0.01},
      {"cpu_steal_pct", "gpuwhy_host_cpu_steal_ratio", "Share of all cores' time taken by the hypervisor", 0.01},
      {"ncores", "gpuwhy_host_cpu_cores", "Logical CPUs the host sampler sees", 1},
      {"mem_total_bytes", "gpuwhy_host_memory_total_bytes", "Host memory, in bytes", 1},
      {"mem_available_bytes", "gpuwhy_host_memory_available_bytes", "Host memory available to programs, in bytes", 1},
      {"swap_total_bytes", "gpuwhy_host_swap_total_bytes", "Swap space, in bytes", 1},
      {"swap_free_bytes", "gpuwhy_host_swap_free_bytes", "Free swap space, in bytes", 1},
      {"psi_cpu_some_pct", "gpuwhy_host_pressure_cpu_some_ratio",
       "Share of time some task waited for a CPU (pressure stall information)", 0.01},
      {"psi_mem_some_pct", "gpuwhy_host_pressure_memory_some_ratio", "Share of time some task waited for memory", 0.01},
      {"psi_mem_full_pct", "gpuwhy_host_pressure_memory_full_ratio", "Share of time all tasks waited for memory", 0.01},
      {"psi_io_some_pct", "gpuwhy_host_pressure_io_some_ratio", "Share of time some task waited for I/O", 0.01},
      {"psi_io_full_pct", "gpuwhy_host_pressure_io_full_ratio", "Share of time all tasks waited for I/O", 0.01},
      {"loadavg_1m", "gpuwhy_host_load1", "One-minute load average", 1},
      {"procs_running", "gpuwhy_host_procs_running", "Runnable tasks", 1},
      {"on_battery", "gpuwhy_host_on_battery", "1 when the host runs on battery", 1},
  };
  enum { NCOLS = sizeof cols / sizeof cols[0] };
  double v[NCOLS];
  const char *names[NCOLS];
  for (size_t i = 0; i < NCOLS; i++)
    names[i] = cols[i].col;
  /* slow fields (memory, pressure) are filled about once a second: take each column's newest value of the last 10 s */
  gw_store_host_latest(store, 10000000000LL, names, NCOLS, v);
  for (size_t i = 0; i < NCOLS; i++) {
    if (isnan(v[i]))
      continue;
    family(out, cols[i].name, "gauge", cols[i].help);
    value(out, cols[i].name, "", v[i] * cols[i].scale);
  }

  static const struct {
    const char *name, *help;
    double scale;
  } disk[] = {
      {"gpuwhy_host_disk_util_ratio", "Share of time the device had requests in flight (iostat %util)", 0.01},
      {"gpuwhy_host_disk_await_seconds", "Average time a request took, queueing included (iostat await)", 1e-3},
      {"gpuwhy_host_disk_reads_per_second", "Read requests completed per second", 1},
      {"gpuwhy_host_disk_writes_per_second", "Write requests completed per second", 1},
      {"gpuwhy_host_disk_read_bytes_per_second", "Bytes read per second", 1},
      {"gpuwhy_host_disk_write_bytes_per_second", "Bytes written per second", 1},
      {"gpuwhy_host_disk_queue_length", "Average number of requests queued or in flight (iostat aqu-sz)", 1},
  };
  /* in the order of enum gw_store_disk_field */
  _Static_assert(sizeof disk / sizeof disk[0] == GW_STORE_DISK_NFIELDS, "one family per disk field");
  struct gw_store_iter *it = gw_store_iter_disks_latest(store);
  if (!it)
    return;
  char *lines[sizeof disk / sizeof disk[0]] = {0};
  size_t sizes[sizeof disk / sizeof disk[0]] = {0};
  FILE *f[sizeof disk / sizeof disk[0]];
  for (size_t k = 0; k < sizeof disk / sizeof disk[0]; k++)
    f[k] = open_memstream(&lines[k], &sizes[k]);
  int any = 0;
  struct gw_store_disk_row d;
  while (gw_store_next_disk(it, &d)) {
    char l[200];
    size_t len = 0;
    l[0] = '\0';
    label(l, sizeof l, &len, "device", d.dev);
    for (size_t k = 0; k < sizeof disk / sizeof disk[0]; k++)
      if (f[k] && !isnan(d.v[k]))
        value(f[k], disk[k].name, l, d.v[k] * disk[k].scale);
    any = 1;
  }
  gw_store_iter_close(it);
  for (size_t k = 0; k < sizeof disk / sizeof disk[0]; k++) {
    if (!f[k])
      continue;
    fclose(f[k]);
    if (any && sizes[k] > 0) {
      family(out, disk[k].name, "gauge", disk[k].help);
      fwrite(lines[k], 1, sizes[k], out);
    }
    free(lines[k]);
  }
}

/* MFU (issue 38) and goodput under the names of the ML goodput measurement
 * library (goodput_time, badput_time by badput type, total_elapsed_time),
 * with gpuwhy's prefix and Prometheus' unit suffix. */
static void mfu_goodput_metrics(FILE *out, const struct gw_diagnosis *dx, const struct gpu_labels *lab, int nlab) {
  if (gw_mfu_any_measured(dx)) {
    family(out, "gpuwhy_mfu_ratio", "gauge",
           "Model FLOPs utilisation (0..1): FLOPs of the counted step over the steady step time, against the GPU's "
           "dense peak for the step's dtypes at the data sheet's clock");
    for (int i = 0; i < dx->ngpus && i < nlab; i++)
      if (dx->mfu[i].measured && !isnan(dx->mfu[i].mfu_pct))
        value(out, "gpuwhy_mfu_ratio", lab[i].text, dx->mfu[i].mfu_pct / 100);
    family(out, "gpuwhy_model_flops_per_second", "gauge", "Model FLOPs per second the steady steps achieved");
    for (int i = 0; i < dx->ngpus && i < nlab; i++)
      if (dx->mfu[i].measured && !isnan(dx->mfu[i].achieved_tflops))
        value(out, "gpuwhy_model_flops_per_second", lab[i].text, dx->mfu[i].achieved_tflops * 1e12);
  }
  if (!dx->goodput)
    return;
  /* each family's samples together, as the exposition format asks */
  family(out, "gpuwhy_goodput_time_seconds", "gauge", "GPU time in the window that advanced training steps");
  for (int i = 0; i < dx->ngpus && i < nlab; i++)
    value(out, "gpuwhy_goodput_time_seconds", lab[i].text, dx->goodput[i].goodput_s);
  family(out, "gpuwhy_badput_time_seconds", "gauge", "GPU time in the window that did not, by badput type");
  for (int i = 0; i < dx->ngpus && i < nlab; i++)
    for (int b = 0; b < GW_BADPUT_N; b++) {
      char lb[700];
      snprintf(lb, sizeof lb, "%s,badput_type=\"%s\"", lab[i].text, gw_badput_id((enum gw_badput)b));
      value(out, "gpuwhy_badput_time_seconds", lb, dx->goodput[i].badput_s[b]);
    }
  family(out, "gpuwhy_total_elapsed_time_seconds", "gauge", "GPU wall time in the window (goodput plus badput)");
  for (int i = 0; i < dx->ngpus && i < nlab; i++)
    value(out, "gpuwhy_total_elapsed_time_seconds", lab[i].text, dx->goodput[i].wall_s);
}

static void diagnosis_metrics(FILE *out, const struct gw_diagnosis *dx, const struct gpu_labels *lab, int nlab) {
  family(out, "gpuwhy_verdict", "gauge",
         "1 for the diagnosis of the window: the class that explains most of the lost GPU time, none (nothing to "
         "fix), unexplained (a third or more lost and no class explains enough of it) or no_data (no GPU worked)");
  /* every value dx->verdict can take has its series, so exactly one is 1 */
  static const char *const not_a_class[] = {"none", "unexplained", "no_data"};
  const int nspecial = (int)(sizeof not_a_class / sizeof not_a_class[0]);
  for (int r = -nspecial; r < gw_nrules; r++) {
    const char *id = r < 0 ? not_a_class[nspecial + r] : gw_rules[r]->id;
    char l[64];
    snprintf(l, sizeof l, "class=\"%s\"", id);
    value(out, "gpuwhy_verdict", l, strcmp(dx->verdict, id) == 0);
  }
  /* A "none" verdict on a GPU without any SM activity source says only that
   * no idle time was seen: GPU-Util cannot tell small kernels from real work. */
  family(out, "gpuwhy_window_sm_blind", "gauge",
         "1 when no GPU had SM activity from any source in the window (no GPM, PM sampling, DCGM or traced "
         "kernels): busy time is only GPU-Util's resident kernel, and a none verdict means no loss was seen");
  value(out, "gpuwhy_window_sm_blind", "", dx->sm_blind);
  static const struct {
    const char *name, *help;
  } fam[] = {
      {"gpuwhy_finding_share", "Share (0..1) of the window's lost GPU time, all GPUs, that this class explains"},
      {"gpuwhy_finding_active_share", "Share (0..1) of the window's active GPU time that this class cost"},
      {"gpuwhy_finding_confidence", "Confidence (0..1) of the finding, 0 when the class was not found"},
  };
  for (size_t k = 0; k < sizeof fam / sizeof fam[0]; k++) {
    family(out, fam[k].name, "gauge", fam[k].help);
    for (int r = 0; r < gw_nrules; r++) {
      double v = 0;
      for (int i = 0; i < dx->nfindings; i++)
        if (strcmp(dx->findings[i].class_id, gw_rules[r]->id) == 0)
          v = k == 0   ? dx->findings[i].share_of_lost
              : k == 1 ? dx->findings[i].share_of_active
                       : dx->findings[i].confidence;
      char l[64];
      snprintf(l, sizeof l, "class=\"%s\"", gw_rules[r]->id);
      value(out, fam[k].name, l, v);
    }
  }
  family(out, "gpuwhy_ledger_share", "gauge",
         "Share (0..1) of the GPU's wall time in the window that landed in this ledger row (the rows add up to 1)");
  for (int i = 0; i < dx->ngpus && i < nlab; i++) {
    const struct gw_ledger *l = &dx->ledgers[i];
    for (int r = 0; r < GW_LEDGER_NROWS; r++) {
      if (!l->measured[r] || l->wall_ns <= 0)
        continue;
      char lb[700];
      snprintf(lb, sizeof lb, "%s,row=\"%s\"", lab[i].text, gw_ledger_row_id((enum gw_ledger_row)r));
      value(out, "gpuwhy_ledger_share", lb, l->row_ns[r] / (double)l->wall_ns);
    }
  }
  mfu_goodput_metrics(out, dx, lab, nlab);
  family(out, "gpuwhy_window_sm_active_median_ratio", "gauge",
         "Median SM activity (0..1) of the GPU while it worked in the window");
  for (int i = 0; i < dx->ngpus && i < nlab; i++)
    value(out, "gpuwhy_window_sm_active_median_ratio", lab[i].text, dx->profiles[i].sm_med_pct / 100);
  family(out, "gpuwhy_window_util_gpu_median_ratio", "gauge",
         "Median nvidia-smi GPU-Util (0..1) of the GPU while it worked in the window");
  for (int i = 0; i < dx->ngpus && i < nlab; i++)
    value(out, "gpuwhy_window_util_gpu_median_ratio", lab[i].text, dx->profiles[i].util_med_pct / 100);
  family(out, "gpuwhy_window_active_seconds", "gauge", "GPU time in the window while the GPUs worked, all GPUs");
  value(out, "gpuwhy_window_active_seconds", "", dx->active_ns / 1e9);
  family(out, "gpuwhy_window_lost_ratio", "gauge",
         "Share (0..1) of the active GPU time in the window that was neither productive nor at the power cap");
  value(out, "gpuwhy_window_lost_ratio", "", dx->active_ns > 0 ? dx->lost_ns / dx->active_ns : NAN);
}

static double window_span_s(const struct gw_recording *rec) {
  int64_t a = 0, b = 0;
  for (int i = 0; i < rec->ngpus; i++)
    if (rec->gpus[i].n) {
      if (!a || rec->gpus[i].t_ns[0] < a)
        a = rec->gpus[i].t_ns[0];
      if (newest_tick(&rec->gpus[i]) > b)
        b = newest_tick(&rec->gpus[i]);
    }
  if (rec->host.n) {
    if (!a || rec->host.t_ns[0] < a)
      a = rec->host.t_ns[0];
    if (rec->host.t_ns[rec->host.n - 1] > b)
      b = rec->host.t_ns[rec->host.n - 1];
  }
  return b > a ? (double)(b - a) / 1e9 : 0;
}

gw_status gw_prom_write(struct gw_prom_state *st, const char *path, FILE *out, struct gw_err *err) {
  int64_t t_start = gw_now_monotonic_ns();
  struct gw_recording *rec = NULL;
  struct gw_diagnosis *dx = NULL;
  gw_status rc = gw_recording_load_every_metric(path, &rec, err);
  if (!rc)
    rc = gw_diagnose(rec, &dx, err);
  if (rc) {
    gw_diagnosis_free(dx);
    gw_recording_free(rec);
    return rc;
  }
  struct gw_run_facts *facts = gw_xcalloc(1, sizeof *facts);
  struct gw_err ferr = {{0}};
  if (gw_run_facts_of(rec, facts, &ferr) != GW_OK)
    facts->ngpus = 0;
  struct gpu_labels *lab = gw_xcalloc((size_t)rec->ngpus + 1, sizeof *lab);
  gpu_labels(rec, facts, lab);
  struct gw_store *store = rec->store; /* the latest rows through the recording's own connection */

  family(out, "gpuwhy_build_info", "gauge", "gpuwhy version and whether the samples are live or a replayed recording");
  fprintf(out, "gpuwhy_build_info{version=\"%s\",mode=\"%s\"} 1\n", gw_version(), st->mode ? st->mode : "live");
  family(out, "gpuwhy_gpus", "gauge", "GPUs the exporter sees (0 when the NVIDIA driver library could not be loaded)");
  value(out, "gpuwhy_gpus", "", rec->ngpus);
  gpu_metrics(out, rec, lab);
  gpu_health(out, st, store, rec, lab);
  host_metrics(out, store);
  diagnosis_metrics(out, dx, lab, rec->ngpus);
  family(out, "gpuwhy_window_seconds", "gauge", "Time the samples in the diagnosed window cover");
  value(out, "gpuwhy_window_seconds", "", window_span_s(rec));
  family(out, "gpuwhy_window_target_seconds", "gauge", "The window length the exporter was asked to diagnose");
  value(out, "gpuwhy_window_target_seconds", "", st->window_s);
  family(out, "gpuwhy_diagnosis_timestamp_seconds", "gauge", "Unix time the window was last diagnosed");
  value(out, "gpuwhy_diagnosis_timestamp_seconds", "", (double)gw_now_realtime_ns() / 1e9);
  family(out, "gpuwhy_diagnosis_duration_seconds", "gauge",
         "Time the last diagnosis took (loading the window, the analysis and this page)");
  value(out, "gpuwhy_diagnosis_duration_seconds", "", (double)(gw_now_monotonic_ns() - t_start) / 1e9);

  free(lab);
  free(facts);
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  return GW_OK;
}
