/* Terminal report: verdict first, then the ledger, the findings with their
 * evidence and fixes, how to read the raw numbers, and the caveats. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/multi_gpu.h"
#include "core/i18n.h"
#include "render/class_text.h"
#include "render/evidence_text.h"
#include "render/label_text.h"
#include "render/fix_text.h"
#include "render/kernel_facts.h"
#include "render/report_render.h"
#include "render/step_facts.h"
#include "render/mfu_facts.h"
#include "render/note_text.h"
#include "render/multi_gpu_cells.h"

const char *gw_render_basename(const char *path) {
  const char *slash = strrchr(path, '/');
  return slash ? slash + 1 : path;
}

double gw_render_rel_s(const struct gw_diagnosis *dx, int64_t t_ns) {
  int64_t base = dx->started_ns;
  if (!base)
    for (int i = 0; i < dx->ngpus; i++)
      if (dx->ledgers[i].active_start_ns && (!base || dx->ledgers[i].active_start_ns < base))
        base = dx->ledgers[i].active_start_ns;
  return (double)(t_ns - base) / 1e9;
}

double gw_render_row_share(const struct gw_ledger *l, int row) {
  return l->wall_ns > 0 ? l->row_ns[row] / (double)l->wall_ns : 0;
}

struct style {
  const char *bold, *dim, *red, *green, *yellow, *reset;
};

static void print_ledger(const struct gw_diagnosis *dx, FILE *out, const struct style *s) {
  fprintf(out,
          /* TRANSLATORS: a pair of %s around words is a colour on and off: keep both, in that order. */
          dx->estimated ? _("%sGPU time ledger%s (estimated from sampled counters)\n")
                        : _("%sGPU time ledger%s (from the kernel timeline)\n"),
          s->bold, s->reset);
  fprintf(out, "  %-58s", "");
  for (int i = 0; i < dx->ngpus; i++)
    fprintf(out, "  GPU %-3d", dx->ledgers[i].gpu);
  fprintf(out, "\n");
  for (int r = 0; r < GW_LEDGER_NROWS; r++) {
    /* padded by display width: a translated title may hold double-width characters */
    fputs("  ", out);
    gw_fputs_padded(out, gw_row_title(gw_diagnosis_row_title_id(dx, r)), 58);
    for (int i = 0; i < dx->ngpus; i++) {
      const struct gw_ledger *l = &dx->ledgers[i];
      if (!l->measured[r])
        fprintf(out, "  %7s", "-");
      else
        fprintf(out, "  %6.1f%%", gw_render_row_share(l, r) * 100);
    }
    fprintf(out, "\n");
  }
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_ledger *l = &dx->ledgers[i];
    if (l->throttled_power_cap_ns > 0 && l->wall_ns > 0)
      fprintf(out, _("  %sGPU %d: %.1f%% of the throttled time is the SW power cap (the board's limit, not lost)%s\n"),
              s->dim, l->gpu, l->throttled_power_cap_ns / (double)l->wall_ns * 100, s->reset);
  }
  if (dx->active_ns > 0)
    /* an import of one profiled step is active for milliseconds: seconds would read 0.0 */
    fprintf(out,
            dx->active_ns >= 1e9 ? _("  lost GPU time: %.1f%% of %.1f s active (all GPUs)\n")
                                 : _("  lost GPU time: %.1f%% of %.2f ms active (all GPUs)\n"),
            dx->lost_ns / dx->active_ns * 100, dx->active_ns >= 1e9 ? dx->active_ns / 1e9 : dx->active_ns / 1e6);
  fprintf(out, "\n");
}

/* The idle time charged to what the training thread did (only for
 * recordings with thread or Python samples), largest cause first. */
static void print_idle_causes(const struct gw_diagnosis *dx, FILE *out, const struct style *s) {
  if (!dx->measured)
    return;
  fprintf(out, _("%sIdle time by what the training thread was doing%s\n"), s->bold, s->reset);
  for (int i = 0; i < dx->ngpus; i++) {
    const struct gw_idle_attribution *a = &dx->attr[i];
    if (a->source == GW_ATTR_NONE || a->idle_s <= 0)
      continue;
    fprintf(out,
            a->source == GW_ATTR_PY ? _("  GPU %d (Python stack samples at %.0f Hz, idle %s):\n")
                                    : _("  GPU %d (thread samples at %.0f Hz, idle %s):\n"),
            a->gpu, a->sampler_hz, a->from_timeline ? _("from the kernel trace") : _("from the GPU samples"));
    /* a sampler that took under nine tenths of its samples fell behind: the
     * stretches it missed are the ones no row can name */
    if (a->source == GW_ATTR_PY && a->taken_hz > 0 && a->taken_hz < 0.9 * a->sampler_hz)
      fprintf(out,
              _("    only %.1f samples a second were taken of the %.0f asked (a loop that holds Python's interpreter "
                "lock makes the sampler wait): the shares below rest on fewer samples\n"),
              a->taken_hz, a->sampler_hz);
    int done[GW_IDLE_NCAUSES] = {0};
    for (int n = 0; n < GW_IDLE_NCAUSES; n++) {
      int c = -1;
      for (int k = 0; k < GW_IDLE_NCAUSES; k++)
        if (!done[k] && a->rows[k].seconds > 0 && (c < 0 || a->rows[k].seconds > a->rows[c].seconds))
          c = k;
      if (c < 0)
        break;
      done[c] = 1;
      const struct gw_attr_row *r = &a->rows[c];
      fprintf(out, _("    idle %.0f%%: %s"), r->share_of_wall * 100, gw_idle_cause_text(c));
      if (r->nframes)
        fprintf(out, " (%s)", r->frame_text[0]);
      double ws = 0;
      for (int k = 0; k < GW_WORKER_NSTATES; k++)
        ws += r->worker_s[k];
      if (c == GW_PYACT_DATA_WAIT && ws > 0) {
        int top = 0;
        for (int k = 1; k < GW_WORKER_NSTATES; k++)
          if (r->worker_s[k] > r->worker_s[top])
            top = k;
        double sh = r->worker_s[top] / ws * 100;
        if (top == GW_WORKERS_NET || top == GW_WORKERS_PIPE || top == GW_WORKERS_OTHER_SLEEP)
          fprintf(out,
                  _("; the %d workers slept (%s) %.0f%% of that time: latency-bound, more workers or prefetch "
                    "will help"),
                  a->nworkers, gw_worker_state_name(top), sh);
        else if (top == GW_WORKERS_DISK)
          fprintf(out, _("; the %d workers waited on the disk %.0f%% of that time: storage-bound"), a->nworkers, sh);
        else if (top == GW_WORKERS_RUNNING)
          fprintf(out,
                  _("; the %d workers were running %.0f%% of that time: CPU-bound, lighter transforms or more "
                    "cores will help"),
                  a->nworkers, sh);
        else
          fprintf(out, _("; no loader worker was seen %.0f%% of that time"), sh);
      }
      fprintf(out, " -> %s\n", gw_idle_cause_class(c));
    }
  }
  fprintf(out, "\n");
}

/* One right-aligned cell: the number with its unit, or "-" when unknown. */
static void cell(FILE *out, int width, double v, const char *unit) {
  char buf[32];
  if (isnan(v))
    gw_strlcpy(buf, "-", sizeof buf);
  else
    snprintf(buf, sizeof buf, "%.0f%s", v, unit);
  fprintf(out, " %*s", width, buf);
}

static void header_cell(FILE *out, const char *title, int width) {
  /* right-aligned by display width: a translated title may hold double-width characters */
  int pad = width - gw_text_width(title);
  fprintf(out, " %*s%s", pad > 0 ? pad : 0, "", title);
}

static void print_nccl(const struct gw_multi_gpu *m, FILE *out, const struct style *s) {
  const struct gw_nccl_summary *n = &m->nccl;
  if (!n->has_log) {
    fputs(_("  No NCCL log in this recording: run with NCCL_DEBUG=INFO to see the transport NCCL chose.\n"), out);
    return;
  }
  fprintf(out, _("  NCCL %s, network %s; connections:"), n->version[0] ? n->version : "?",
          n->network[0] ? n->network : _("not logged"));
  int any = 0;
  for (int t = 0; t < GW_NCCL_NTRANSPORTS; t++)
    if (n->connections[t] > 0) {
      fprintf(out, "%s %s x%d", any ? "," : "", gw_nccl_transport_name((enum gw_nccl_transport)t), n->connections[t]);
      any = 1;
    }
  fputs(any ? "\n" : " -\n", out);
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    if (n->advice[a])
      fprintf(out, "  %s!%s %s\n", s->yellow, s->reset, gw_nccl_advice_text((enum gw_nccl_advice)a));
  for (int w = 0; w < n->nwarnings && w < GW_NCCL_MAX_WARN; w++)
    fprintf(out, "    NCCL WARN %s\n", n->warnings[w]);
}

static void print_multi_gpu(const struct gw_diagnosis *dx, FILE *out, const struct style *s) {
  const struct gw_multi_gpu *m = dx->multi;
  if (!m)
    return;
  fprintf(out,
          m->timeline == GW_MGPU_FULL      ? _("%sMulti-GPU%s (%d GPUs; NCCL time from the kernel timeline)\n")
          : m->timeline == GW_MGPU_SAMPLED ? _("%sMulti-GPU%s (%d GPUs; NCCL time inside the sampled trace windows)\n")
                                           : _("%sMulti-GPU%s (%d GPUs; counters only, no kernel timeline)\n"),
          s->bold, s->reset, m->ngpus);
  int label_w = 8;
  for (int i = 0; i < m->ngpus; i++)
    if (gw_text_width(m->gpus[i].label) > label_w)
      label_w = gw_text_width(m->gpus[i].label);
  fputs("  ", out);
  gw_fputs_padded(out, "", label_w);
  /* TRANSLATORS: column titles of the multi-GPU table: at most 9 columns each (CJK counts 2). rank,
   * GPU-Util and NCCL stay as the tools name them. */
  const char *titles[] = {"rank",        "GPU-Util", _("SM act."), _("tensor"),
                          _("SM clock"), "NCCL",     _("overlap"), _("transport")};
  const int widths[] = {5, 9, 8, 7, 9, 6, 8, 0};
  for (int c = 0; c < 7; c++)
    header_cell(out, titles[c], widths[c]);
  fprintf(out, "  %s\n", titles[7]);
  for (int i = 0; i < m->ngpus; i++) {
    const struct gw_mgpu_gpu *g = &m->gpus[i];
    fputs("  ", out);
    gw_fputs_padded(out, g->label, label_w);
    struct gw_mgpu_cell cells[GW_MGPU_NUMBER_COLUMNS];
    gw_mgpu_number_cells(g, cells);
    for (int c = 0; c < GW_MGPU_NUMBER_COLUMNS; c++)
      cell(out, widths[c], cells[c].value, cells[c].unit);
    fprintf(out, "  %s%s\n", g->transport[0] ? g->transport : "-", i == m->straggler ? " *" : "");
  }
  if (!isnan(m->sm_spread_pts))
    fprintf(out,
            m->sm_spread_unequal ? _("  SM activity spread: %.0f points (%.0f or more: the GPUs do unequal work)\n")
                                 : _("  SM activity spread: %.0f points (under %.0f: balanced)\n"),
            m->sm_spread_pts, m->sm_spread_limit_pts);
  if (m->straggler >= 0)
    fprintf(out, _("  %sStraggler (*): %s%s: %s; the other GPUs wait for it.\n"), s->red, m->gpus[m->straggler].label,
            s->reset, gw_straggler_cause_text(m->cause));
  if (!isnan(m->exposed_share))
    fprintf(out, _("  NCCL time not overlapped with compute: %.1f%% of the traced GPU time\n"), m->exposed_share * 100);
  if (!isnan(m->shared_dip_share) && m->shared_dip_share + m->solo_dip_share > 0)
    fprintf(out, _("  Dips on all GPUs at once: %.0f%% of the time; on one GPU alone: up to %.0f%%\n"),
            m->shared_dip_share * 100, m->solo_dip_share * 100);
  print_nccl(m, out, s);
  fprintf(out, "\n");
}

/* Duration bucket b of the histogram as a label: edges are powers of two of
 * a microsecond, written in ms from 1024 us on (rounded: 1-2 ms). */
static void bucket_label(int b, char *buf, size_t cap) {
  if (b == 0)
    snprintf(buf, cap, "<2 us");
  else if (b == GW_KSTATS_NBUCKETS - 1)
    snprintf(buf, cap, ">=16 ms");
  else if (b < 10)
    snprintf(buf, cap, "%.0f-%.0f us", gw_kstats_bucket_lo_us(b), gw_kstats_bucket_lo_us(b + 1));
  else
    snprintf(buf, cap, "%.0f-%.0f ms", gw_kstats_bucket_lo_us(b) / 1024, gw_kstats_bucket_lo_us(b + 1) / 1024);
}

/* Share of same-position kernels whose grid changes between steps from which
 * the shapes count as dynamic. */
#define DYNAMIC_SHAPES_SHARE 0.1

static void print_kernel_gpu(const struct gw_kernel_stats *k, int gpu, FILE *out, const struct style *s) {
  if (k->sampled)
    fprintf(out, _("  GPU %d: %lld kernels in %.2f s of trace windows (%lld with kernels): %.0f launches/s\n"), gpu,
            (long long)k->nkernels, k->traced_s, (long long)k->nwindows, k->launches_per_s);
  else if (k->traced_s < 0.1)
    /* a profiled step or two (an import) lasts milliseconds: "0.00 s" beside its kernels would read as none */
    fprintf(out, _("  GPU %d: %lld kernels in %.2f ms traced: %.0f launches/s\n"), gpu, (long long)k->nkernels,
            k->traced_s * 1e3, k->launches_per_s);
  else
    fprintf(out, _("  GPU %d: %lld kernels in %.2f s traced: %.0f launches/s\n"), gpu, (long long)k->nkernels,
            k->traced_s, k->launches_per_s);
  fprintf(out, _("    kernel time: mean %.1f us, median %.1f us, p90 %.1f us\n"), k->dur_mean_us, k->dur_median_us,
          k->dur_p90_us);
  fprintf(out, "    %s", s->dim);
  int first = 1;
  for (int b = 0; b < GW_KSTATS_NBUCKETS; b++) {
    if (!k->hist[b])
      continue;
    char label[32];
    bucket_label(b, label, sizeof label);
    fprintf(out, "%s%s %.0f%%", first ? "" : ", ", label, 100.0 * (double)k->hist[b] / (double)k->nkernels);
    first = 0;
  }
  fprintf(out, "%s\n", s->reset);
  if (k->window_span_s > 0) {
    /* TRANSLATORS: the shares of the ledger's rows (busy, idle: launch, sync, input, communication, other) inside
     * the sampled trace windows. */
    fprintf(out, _("    inside the windows (%.2f s of GPU work span): busy %.0f%%, idle: launch %.0f%%"),
            k->window_span_s, k->window_busy_share * 100, k->window_launch_share * 100);
    if (k->window_sync_seen)
      fprintf(out, _(", sync %.0f%%"), k->window_sync_share * 100);
    fprintf(out, _(", input %.0f%%, communication %.0f%%, other %.0f%%\n"), k->window_input_share * 100,
            k->window_comm_share * 100, k->window_other_share * 100);
  }
  if (k->step_source == GW_KSTEPS_NONE) {
    fputs(_("    steps: not marked, and the kernel names do not repeat in a period\n"), out);
    return;
  }
  if (k->step_source == GW_KSTEPS_TABLE)
    fprintf(out,
            _("    steps (marked by the program): %lld, %.1f kernels per step (median %.0f), step time median %.1f "
              "ms\n"),
            (long long)k->nsteps, k->kernels_per_step_mean, k->kernels_per_step_median, k->step_median_s * 1e3);
  else
    fprintf(
        out,
        _("    steps (from the repeating kernel sequence: every %lld kernels, %.0f%% repeat): %lld, %.1f kernels per "
          "step (median %.0f), step time median %.1f ms\n"),
        (long long)k->period_kernels, k->period_share * 100, (long long)k->nsteps, k->kernels_per_step_mean,
        k->kernels_per_step_median, k->step_median_s * 1e3);
  if (k->shape_pairs <= 0)
    return;
  double share = (double)k->shape_varying / (double)k->shape_pairs;
  fprintf(out, _("    grid sizes that change between steps: %.1f%% of %lld same-position kernels"), share * 100,
          (long long)k->shape_pairs);
  if (share >= DYNAMIC_SHAPES_SHARE)
    fputs(_(" (dynamic shapes)"), out);
  fputs("\n", out);
  for (int v = 0; v < k->nvarying; v++)
    fprintf(out, _("      %s: %lld of %lld vary\n"), k->top[v].name, (long long)k->top[v].varying,
            (long long)k->top[v].pairs);
}

static void print_kernels(const struct gw_diagnosis *dx, FILE *out, const struct style *s) {
  int sampled = 0;
  if (!gw_kernel_facts_present(dx->kstats, dx->ngpus, &sampled))
    return;
  fprintf(out,
          sampled ? _("%sKernel timeline%s (sampled: only the trace windows)\n")
                  : _("%sKernel timeline%s (traced kernels)\n"),
          s->bold, s->reset);
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->kstats[i].nkernels > 0)
      print_kernel_gpu(&dx->kstats[i], dx->ledgers[i].gpu, out, s);
  fprintf(out, "\n");
}

static void print_range(const struct gw_diagnosis *dx, FILE *out, int64_t t0, int64_t t1, const struct style *s) {
  if (t0 == 0 && t1 == 0)
    return;
  fprintf(out, " %s[%.1f s .. %.1f s]%s", s->dim, gw_render_rel_s(dx, t0), gw_render_rel_s(dx, t1), s->reset);
}

void gw_render_text(const struct gw_diagnosis *dx, FILE *out, int color) {
  struct style s = {"", "", "", "", "", ""};
  if (color)
    s = (struct style){"\033[1m", "\033[2m", "\033[31m", "\033[32m", "\033[33m", "\033[0m"};
  fprintf(out, _("%sgpuwhy report%s: %s\n"), s.bold, s.reset, gw_render_basename(dx->path));
  if (strcmp(dx->verdict, "no_data") == 0) {
    fprintf(out, _("Verdict: %sno data%s: no GPU did any work in this recording.\n\n"), s.yellow, s.reset);
  } else if (strcmp(dx->verdict, "unexplained") == 0) {
    double row_share = 0;
    int row = gw_diagnosis_largest_loss(dx, &row_share);
    if (dx->nfindings > 0) /* classes held, none explains enough of the loss to name */
      fprintf(out,
              _("Verdict: %sunexplained%s: %.0f%% of the active GPU time was lost (most of it %s, %.0f%%); the "
                "largest class found, %s, explains %.0f%% of it, too little to name. The next experiments below "
                "would decide.\n\n"),
              s.yellow, s.reset, dx->lost_ns / dx->active_ns * 100, gw_row_title(gw_diagnosis_row_title_id(dx, row)),
              row_share * 100, dx->findings[0].class_id, dx->findings[0].share_of_lost * 100);
    else
      fprintf(out,
              _("Verdict: %sunexplained%s: %.0f%% of the active GPU time was lost (most of it %s, %.0f%%), and no "
                "class's evidence holds. The next experiments below would decide.\n\n"),
              s.yellow, s.reset, dx->lost_ns / dx->active_ns * 100, gw_row_title(gw_diagnosis_row_title_id(dx, row)),
              row_share * 100);
    /* what the samples saw the thread do: the line of the user's code to read first */
    char activity[768];
    if (gw_idle_largest_activity_text(dx->attr, dx->ngpus, activity, sizeof activity))
      fprintf(out, "%s\n\n", activity);
  } else if (dx->nfindings == 0 && dx->demand_limited) {
    fprintf(out,
            _("Verdict: %snone%s (demand-limited): the GPU lost %.0f%% of its active time waiting for work that had "
              "not arrived; nothing in the program stalled it (see the notes).\n\n"),
            s.green, s.reset, dx->lost_ns / dx->active_ns * 100);
  } else if (dx->nfindings == 0 && dx->sm_blind) {
    double busy = dx->active_ns > 0 ? 1 - dx->lost_ns / dx->active_ns : 0;
    fprintf(out,
            _("Verdict: %snone seen%s, but how much work the GPU did was not measured: a kernel was resident %.0f%% of "
              "the active time (GPU-Util), and without GPM or a kernel trace batches too small to fill the GPU look "
              "the same. The experiment below decides.\n\n"),
            s.yellow, s.reset, busy * 100);
  } else if (dx->nfindings == 0) {
    double prod = dx->active_ns > 0 ? 1 - dx->lost_ns / dx->active_ns : 0;
    fprintf(out,
            _("Verdict: %snone%s: the GPUs did real work (or ran at their power limit) for %.0f%% of their active "
              "time. Nothing here is worth fixing.\n\n"),
            s.green, s.reset, prod * 100);
  } else {
    const struct gw_finding *f = &dx->findings[0];
    /* the loss itself beside the class's part of it: 89% of a loss of 9% is a healthy run */
    fprintf(
        out,
        _("Verdict: %s%s%s [%s]: %.0f%% of the lost GPU time (%.0f%% of the active time was lost), confidence %.2f\n"),
        s.red, gw_class_title(f->class_id, 1), s.reset, f->class_id, f->share_of_lost * 100,
        dx->active_ns > 0 ? dx->lost_ns / dx->active_ns * 100 : 0, f->confidence);
    if (dx->nfindings > 1) {
      /* TRANSLATORS: followed by the other class ids, e.g. " small_batch (12%)". */
      fputs(_("Also:"), out);
      for (int i = 1; i < dx->nfindings; i++)
        fprintf(out, "%s %s (%.0f%%)", i > 1 ? "," : "", dx->findings[i].class_id, dx->findings[i].share_of_lost * 100);
      fprintf(out, "\n");
    }
    fprintf(out, "\n");
  }
  if (dx->ngpus > 0)
    print_ledger(dx, out, &s);
  print_idle_causes(dx, out, &s);
  print_multi_gpu(dx, out, &s);
  print_kernels(dx, out, &s);
  gw_mfu_facts_text(dx, out, s.bold, s.reset);
  gw_step_facts_text(dx, out, s.bold, s.reset);
  gw_step_breakdown_text(dx, out, s.bold, s.reset);
  if (dx->nfindings > 0) {
    fprintf(out, _("%sFindings%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nfindings; i++) {
      const struct gw_finding *f = &dx->findings[i];
      fprintf(out, _("%d. %s%s%s [%s]\n   %.0f%% of lost GPU time (%.0f%% of active time), confidence %.2f\n"), i + 1,
              s.bold, gw_class_title(f->class_id, 1), s.reset, f->class_id, f->share_of_lost * 100,
              f->share_of_active * 100, f->confidence);
      if (f->speedup_max > GW_SPEEDUP_SHOWN_MAX)
        fprintf(out,
                _("   this class holds nearly all of the active time: removing it would make the run more than "
                  "%.0fx faster\n"),
                GW_SPEEDUP_SHOWN_MAX);
      else
        fprintf(out, _("   removing this time entirely would make the run at most %.2fx faster\n"), f->speedup_max);
      for (int e = 0; e < f->nevidence; e++) {
        char line[GW_TEXT];
        gw_evidence_text(&f->evidence[e], 1, line, sizeof line);
        fprintf(out, "   - %s", line);
        print_range(dx, out, f->evidence[e].t0_ns, f->evidence[e].t1_ns, &s);
        fprintf(out, "\n");
      }
      fputs(_("   Try, cheapest first:\n"), out);
      for (int k = 0; k < f->nfixes; k++)
        fprintf(out, "   %d) %s\n      %s%s%s\n", k + 1, gw_fix_what(&f->fixes[k], 1), s.dim,
                gw_fix_why(&f->fixes[k], 1), s.reset);
      fprintf(out, "\n");
    }
  }
  char note[GW_TEXT];
  if (dx->ninterp > 0) {
    fprintf(out, _("%sReading the numbers%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->ninterp; i++) {
      gw_note_text(&dx->interp[i], 1, note, sizeof note);
      fprintf(out, "  - %s\n", note);
    }
    fprintf(out, "\n");
  }
  if (dx->nexperiments > 0) {
    fprintf(out, _("%sNext experiments%s (the data cannot decide alone)\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nexperiments; i++) {
      gw_note_id_text(dx->experiments[i].why_id, 1, note, sizeof note);
      fprintf(out, "  $ %s\n    %s%s%s\n", dx->experiments[i].what, s.dim, note, s.reset);
    }
    fprintf(out, "\n");
  }
  if (dx->nnotes > 0) {
    fprintf(out, _("%sNotes%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nnotes; i++) {
      gw_note_text(&dx->notes[i], 1, note, sizeof note);
      fprintf(out, "  - %s\n", note);
    }
  }
}
