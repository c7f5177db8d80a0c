/* The frames of `gpuwhy watch` (see include/gpuwhy/watch.h): per GPU, SM
 * activity beside GPU-Util, power against its limit, clocks and their
 * reasons, PCIe and memory; then CPU, the target's processes and disks. */
#include <gpuwhy/watch.h>

#include <gpuwhy/record.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/i18n.h"
#include "core/sample.h"
#include "core/util.h"
#include "sources/clock_reasons.h"

#define MAX_LINES 96
#define LINE_CAP 200
#define WATCH_MAX_GPUS 64

struct frame {
  int n;
  char line[MAX_LINES][LINE_CAP];
  int alert[MAX_LINES]; /* 1: show highlighted */
};

struct gw_watch_view {
  struct frame fr;
  /* The newest reading of every metric: the sampler reads some once a second
   * or less (power, temperatures, memory), the screen shows them every frame. */
  struct gw_gpu_sample shown[WATCH_MAX_GPUS];
};

static void keep_newest(struct gw_gpu_sample *shown, const struct gw_gpu_sample *now) {
  for (int m = 0; m < GW_GPU_NMETRICS; m++)
    if (gw_gpu_valid(now, (enum gw_gpu_metric)m))
      gw_gpu_set(shown, (enum gw_gpu_metric)m, now->values[m]);
  shown->t_ns = now->t_ns;
  shown->gpu = now->gpu;
}

static void add(struct frame *f, int alert, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void add(struct frame *f, int alert, const char *fmt, ...) {
  if (f->n >= MAX_LINES)
    return;
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(f->line[f->n], LINE_CAP, fmt, ap);
  va_end(ap);
  f->alert[f->n++] = alert;
}

/* "42%" or _("n/a") when the metric was not read. */
static const char *pct(const struct gw_gpu_sample *s, enum gw_gpu_metric m, char *buf, size_t cap) {
  if (!gw_gpu_valid(s, m))
    return _("n/a");
  snprintf(buf, cap, "%.0f%%", s->values[m]);
  return buf;
}

static void bar(double pct_value, char *buf, size_t width) {
  size_t filled = pct_value <= 0 ? 0 : (size_t)(pct_value / 100.0 * (double)width + 0.5);
  if (filled > width)
    filled = width;
  for (size_t i = 0; i < width; i++)
    buf[i] = i < filled ? '#' : '.';
  buf[width] = '\0';
}

static void reasons_text(uint64_t mask, char *buf, size_t cap) {
  buf[0] = '\0';
  size_t len = 0;
  for (size_t i = 0; i < gw_clock_reason_nnames; i++)
    if (mask & gw_clock_reason_names[i].bit) {
      int n = snprintf(buf + len, cap - len, "%s%s", len ? _(", ") : "", _(gw_clock_reason_names[i].short_name));
      if (n < 0 || (size_t)n >= cap - len)
        break;
      len += (size_t)n;
    }
  if (!len)
    snprintf(buf, cap, _("none"));
}

static void gpu_lines(struct frame *f, const struct gw_gpu_info *info, const struct gw_gpu_sample *s, int lost) {
  char a[16], b[16], c[16], d[16], bar1[24], bar2[24];
  if (lost) {
    add(f, 1, _("GPU %u  %s  LOST: the driver no longer answers for this GPU"), info->index, info->name);
    return;
  }
  int pst = gw_gpu_valid(s, GW_M_pstate) ? (int)s->values[GW_M_pstate] : -1;
  char temp[16] = "";
  if (gw_gpu_valid(s, GW_M_temp_gpu_c))
    snprintf(temp, sizeof temp, "%.0f C", s->values[GW_M_temp_gpu_c]);
  add(f, 0, "GPU %u  %s  %s%d  %s", info->index, info->name, pst >= 0 ? "P" : "P?", pst >= 0 ? pst : 0, temp);
  double util = s->values[GW_M_util_gpu_pct], sm = s->values[GW_M_sm_active_pct];
  bar(gw_gpu_valid(s, GW_M_util_gpu_pct) ? util : 0, bar1, 10);
  bar(gw_gpu_valid(s, GW_M_sm_active_pct) ? sm : 0, bar2, 10);
  add(f, 0, _("  GPU-Util %4s [%s]   SM activity %4s [%s]   tensor %s  occupancy %s  DRAM bw %s"),
      pct(s, GW_M_util_gpu_pct, a, sizeof a), bar1, pct(s, GW_M_sm_active_pct, b, sizeof b), bar2,
      pct(s, GW_M_tensor_active_pct, c, sizeof c), pct(s, GW_M_sm_occupancy_pct, d, sizeof d),
      pct(s, GW_M_dram_bw_pct, a, sizeof a));
  if (!gw_gpu_valid(s, GW_M_sm_active_pct) && gw_gpu_valid(s, GW_M_util_gpu_pct))
    add(f, 0, _("  SM activity needs GPM (Hopper or newer); GPU-Util alone only says a kernel was resident"));
  else if (gw_gpu_valid(s, GW_M_util_gpu_pct) && gw_gpu_valid(s, GW_M_sm_active_pct) && util >= 20 && sm < util / 3)
    add(f, 1, _("  ! GPU-Util %.0f%% but only %.0f%% of SM capacity works: kernels are tiny or use few SMs"), util, sm);
  char power[96]; /* room for a translation */
  snprintf(power, sizeof power, "%s", _("power n/a"));
  if (gw_gpu_valid(s, GW_M_power_mw)) {
    double w = s->values[GW_M_power_mw] / 1000.0;
    double lim = gw_gpu_valid(s, GW_M_power_limit_mw) ? s->values[GW_M_power_limit_mw] / 1000.0 : 0;
    if (lim > 0)
      snprintf(power, sizeof power, _("power %.0f/%.0f W (%.0f%%)"), w, lim, 100.0 * w / lim);
    else
      snprintf(power, sizeof power, _("power %.0f W"), w);
  }
  char reasons[240]; /* room for a translation */
  snprintf(reasons, sizeof reasons, "%s", _("n/a"));
  if (gw_gpu_valid(s, GW_M_clock_reasons))
    reasons_text((uint64_t)s->values[GW_M_clock_reasons], reasons, sizeof reasons);
  char clocks[96]; /* room for a translation */
  snprintf(clocks, sizeof clocks, "%s", _("SM clock n/a"));
  if (gw_gpu_valid(s, GW_M_sm_clock_mhz))
    snprintf(clocks, sizeof clocks, _("SM %.0f/%u MHz"), s->values[GW_M_sm_clock_mhz], info->sm_clock_max_mhz);
  add(f, 0, _("  %s  %s  clock reasons: %s"), power, clocks, reasons);
  char pcie[144]; /* room for a translation */
  snprintf(pcie, sizeof pcie, "%s", _("PCIe n/a"));
  if (gw_gpu_valid(s, GW_M_pcie_rx_bps) && gw_gpu_valid(s, GW_M_pcie_tx_bps))
    snprintf(pcie, sizeof pcie, _("PCIe rx %.2f GB/s tx %.2f GB/s"), s->values[GW_M_pcie_rx_bps] / 1e9,
             s->values[GW_M_pcie_tx_bps] / 1e9);
  char link[48] = "";
  if (gw_gpu_valid(s, GW_M_pcie_gen) && gw_gpu_valid(s, GW_M_pcie_width))
    snprintf(link, sizeof link, _(" (gen%.0f x%.0f of gen%u x%u)"), s->values[GW_M_pcie_gen],
             s->values[GW_M_pcie_width], info->pcie_gen_max, info->pcie_width_max);
  char mem[96]; /* room for a translation */
  snprintf(mem, sizeof mem, "%s", _("memory n/a"));
  if (gw_gpu_valid(s, GW_M_mem_used_bytes) && info->mem_total_bytes > 0)
    snprintf(mem, sizeof mem, _("memory %.1f/%.1f GiB (%.0f%%)"), s->values[GW_M_mem_used_bytes] / 1073741824.0,
             (double)info->mem_total_bytes / 1073741824.0,
             100.0 * s->values[GW_M_mem_used_bytes] / (double)info->mem_total_bytes);
  add(f, 0, "  %s%s  %s", pcie, link, mem);
}

static void host_lines(struct frame *f, const struct gw_host_sample *h, int target_pid) {
  if (!(h->valid & (1u << GW_H_CPU))) {
    add(f, 0, _("CPU: measuring..."));
    return;
  }
  char cores[120] = "";
  size_t len = 0;
  /* The five busiest cores tell whether one thread or a few workers saturate. */
  double top[5] = {0};
  for (int c = 0; c < h->ncores; c++) {
    double v = h->cores[c].busy_pct;
    for (int k = 0; k < 5; k++)
      if (v > top[k]) {
        memmove(&top[k + 1], &top[k], (size_t)(4 - k) * sizeof *top);
        top[k] = v;
        break;
      }
  }
  for (int k = 0; k < 5 && k < h->ncores; k++) {
    int n = snprintf(cores + len, sizeof cores - len, " %.0f%%", top[k]);
    if (n > 0 && (size_t)n < sizeof cores - len)
      len += (size_t)n;
  }
  add(f, 0, "CPU %.0f%% of %d cores (user %.0f sys %.0f iowait %.0f)  busiest cores:%s", h->total.busy_pct, h->ncores,
      h->total.user_pct, h->total.system_pct, h->total.iowait_pct, cores);
  if (target_pid) {
    const struct gw_proc_sample *main_proc = NULL;
    int workers = 0;
    double worker_cpu = 0, worker_max = 0;
    for (int p = 0; p < h->nprocs; p++) {
      const struct gw_proc_sample *ps = &h->procs[p];
      if (ps->role == GW_ROLE_TARGET)
        main_proc = ps;
      else if (ps->cpu_pct >= 0) {
        workers++;
        worker_cpu += ps->cpu_pct;
        if (ps->cpu_pct > worker_max)
          worker_max = ps->cpu_pct;
      }
    }
    if (main_proc && main_proc->cpu_pct >= 0)
      add(f, main_proc->cpu_pct >= 95,
          "target %d %s  CPU %.0f%%  threads %d (%d running)  RSS %.1f GiB  workers %d (%.0f%% total, busiest %.0f%%)",
          main_proc->pid, main_proc->comm, main_proc->cpu_pct, main_proc->threads, main_proc->threads_running,
          (double)main_proc->rss_bytes / 1073741824.0, workers, worker_cpu, worker_max);
  }
  for (int d = 0; d < h->ndisks && d < 4; d++) {
    const struct gw_disk_sample *ds = &h->disks[d];
    add(f, ds->util_pct >= 90, _("disk %-10s util %3.0f%%  read %.1f MB/s  write %.1f MB/s  await %.1f ms"), ds->name,
        ds->util_pct, ds->read_bps / 1e6, ds->write_bps / 1e6, ds->await_ms);
  }
}

static void build_frame(struct frame *f, const struct gw_tick *t, const struct gw_gpu_sample *shown) {
  f->n = 0;
  char when[32];
  time_t sec = (time_t)(t->t_ns / 1000000000LL);
  struct tm tm;
  localtime_r(&sec, &tm);
  strftime(when, sizeof when, "%H:%M:%S", &tm);
  add(f, 0, "gpuwhy watch  %s", when);
  if (t->gpu_note)
    add(f, 1, _("no GPU data: %s"), t->gpu_note);
  for (int g = 0; g < t->ngpus; g++)
    gpu_lines(f, &t->gpu_info[g], g < WATCH_MAX_GPUS ? &shown[g] : &t->gpu[g], t->gpu_lost[g]);
  host_lines(f, t->host, t->target_pid);
}

struct gw_watch_view *gw_watch_view_new(void) {
  return gw_xcalloc(1, sizeof(struct gw_watch_view));
}

void gw_watch_view_free(struct gw_watch_view *v) {
  free(v);
}

void gw_watch_view_update(struct gw_watch_view *v, const struct gw_tick *t) {
  for (int g = 0; g < t->ngpus && g < WATCH_MAX_GPUS; g++)
    keep_newest(&v->shown[g], &t->gpu[g]);
  build_frame(&v->fr, t, v->shown);
}

int gw_watch_view_lines(const struct gw_watch_view *v) {
  return v->fr.n;
}

const char *gw_watch_view_line(const struct gw_watch_view *v, int i, int *alert) {
  if (i < 0 || i >= v->fr.n) {
    *alert = 0;
    return "";
  }
  *alert = v->fr.alert[i];
  return v->fr.line[i];
}
