/* Terminal report: verdict first, then the ledger, the findings with their
 * evidence and fixes, how to read the raw numbers, and the caveats. */
#include <math.h>
#include <string.h>

#include "core/i18n.h"
#include "render/report_render.h"

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
    gw_fputs_padded(out, gw_ledger_row_title((enum gw_ledger_row)r), 58);
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
    fprintf(out, _("  lost GPU time: %.1f%% of %.1f s active (all GPUs)\n"), dx->lost_ns / dx->active_ns * 100,
            dx->active_ns / 1e9);
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
  } else if (dx->nfindings == 0) {
    double prod = dx->active_ns > 0 ? 1 - dx->lost_ns / dx->active_ns : 0;
    fprintf(out,
            _("Verdict: %snone%s: the GPUs did real work (or ran at their power limit) for %.0f%% of their active "
              "time. Nothing here is worth fixing.\n\n"),
            s.green, s.reset, prod * 100);
  } else {
    const struct gw_finding *f = &dx->findings[0];
    fprintf(out, _("Verdict: %s%s%s [%s]: %.0f%% of the lost GPU time, confidence %.2f\n"), s.red, f->title, s.reset,
            f->class_id, f->share_of_lost * 100, f->confidence);
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
  if (dx->nfindings > 0) {
    fprintf(out, _("%sFindings%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nfindings; i++) {
      const struct gw_finding *f = &dx->findings[i];
      fprintf(out, _("%d. %s%s%s [%s]\n   %.0f%% of lost GPU time (%.0f%% of active time), confidence %.2f\n"), i + 1,
              s.bold, f->title, s.reset, f->class_id, f->share_of_lost * 100, f->share_of_active * 100, f->confidence);
      for (int e = 0; e < f->nevidence; e++) {
        fprintf(out, "   - %s", f->evidence[e].text);
        print_range(dx, out, f->evidence[e].t0_ns, f->evidence[e].t1_ns, &s);
        fprintf(out, "\n");
      }
      fputs(_("   Try, cheapest first:\n"), out);
      for (int k = 0; k < f->nfixes; k++)
        fprintf(out, "   %d) %s\n      %s%s%s\n", k + 1, f->fixes[k].what, s.dim, f->fixes[k].why, s.reset);
      fprintf(out, "\n");
    }
  }
  if (dx->ninterp > 0) {
    fprintf(out, _("%sReading the numbers%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->ninterp; i++)
      fprintf(out, "  - %s\n", dx->interp[i]);
    fprintf(out, "\n");
  }
  if (dx->nexperiments > 0) {
    fprintf(out, _("%sNext experiments%s (the data cannot decide alone)\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nexperiments; i++)
      fprintf(out, "  $ %s\n    %s%s%s\n", dx->experiments[i].what, s.dim, dx->experiments[i].why, s.reset);
    fprintf(out, "\n");
  }
  if (dx->nnotes > 0) {
    fprintf(out, _("%sNotes%s\n"), s.bold, s.reset);
    for (int i = 0; i < dx->nnotes; i++)
      fprintf(out, "  - %s\n", dx->notes[i]);
  }
}
