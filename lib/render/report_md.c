/* Markdown report: the same content as the terminal text, as tables and
 * lists for issues, wikis and pull requests. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "analysis/multi_gpu.h"
#include "core/i18n.h"
#include "render/mfu_facts.h"
#include "render/class_text.h"
#include "render/evidence_text.h"
#include "render/label_text.h"
#include "render/fix_text.h"
#include "render/kernel_facts.h"
#include "render/note_text.h"
#include "render/report_render.h"
#include "render/multi_gpu_cells.h"

static void md_cell(FILE *out, double v, const char *unit) {
  if (isnan(v))
    fputs(" - |", out);
  else
    fprintf(out, " %.0f%s |", v, unit);
}

static void md_multi_gpu(const struct gw_multi_gpu *m, FILE *out) {
  fprintf(out, _("## Multi-GPU (%d GPUs)\n\n"), m->ngpus);
  /* TRANSLATORS: the Markdown multi-GPU table's header row; keep the | separators. */
  fputs(_("| GPU | rank | GPU-Util | SM activity | tensor | SM clock | NCCL share | overlapped | transport |\n"), out);
  fputs("|---|---:|---:|---:|---:|---:|---:|---:|---|\n", out);
  for (int i = 0; i < m->ngpus; i++) {
    const struct gw_mgpu_gpu *g = &m->gpus[i];
    fprintf(out, "| %s%s |", g->label, i == m->straggler ? " *" : "");
    struct gw_mgpu_cell cells[GW_MGPU_NUMBER_COLUMNS];
    gw_mgpu_number_cells(g, cells);
    for (int c = 0; c < GW_MGPU_NUMBER_COLUMNS; c++)
      md_cell(out, cells[c].value, cells[c].unit);
    fprintf(out, " %s |\n", g->transport[0] ? g->transport : "-");
  }
  fputs("\n", out);
  if (!isnan(m->sm_spread_pts))
    fprintf(out,
            m->sm_spread_unequal ? _("- SM activity spread: %.0f points (%.0f or more: the GPUs do unequal work)\n")
                                 : _("- SM activity spread: %.0f points (under %.0f: balanced)\n"),
            m->sm_spread_pts, m->sm_spread_limit_pts);
  if (m->straggler >= 0)
    fprintf(out, _("- **Straggler (\\*): %s**: %s; the other GPUs wait for it.\n"), m->gpus[m->straggler].label,
            gw_straggler_cause_text(m->cause));
  if (!isnan(m->exposed_share))
    fprintf(out, _("- NCCL time not overlapped with compute: %.1f%% of the traced GPU time\n"), m->exposed_share * 100);
  if (!isnan(m->shared_dip_share) && m->shared_dip_share + m->solo_dip_share > 0)
    fprintf(out, _("- Dips on all GPUs at once: %.0f%% of the time; on one GPU alone: up to %.0f%%\n"),
            m->shared_dip_share * 100, m->solo_dip_share * 100);
  if (!m->nccl.has_log)
    fputs(_("- No NCCL log in this recording: run with NCCL_DEBUG=INFO to see the transport NCCL chose.\n"), out);
  else if (m->nccl.version[0])
    fprintf(out, _("- NCCL %s, network %s\n"), m->nccl.version, m->nccl.network[0] ? m->nccl.network : _("not logged"));
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    if (m->nccl.advice[a])
      fprintf(out, "- **!** %s\n", gw_nccl_advice_text((enum gw_nccl_advice)a));
  for (int w = 0; w < m->nccl.nwarnings && w < GW_NCCL_MAX_WARN; w++)
    fprintf(out, "- `NCCL WARN %s`\n", m->nccl.warnings[w]);
  fputs("\n", out);
}

/* The kernel timeline: one column per traced GPU. */
static void md_kernels(const struct gw_diagnosis *dx, FILE *out) {
  int sampled = 0;
  if (!gw_kernel_facts_present(dx->kstats, dx->ngpus, &sampled))
    return;
  fputs(sampled ? _("## Kernel timeline (sampled: only the trace windows)\n\n| |")
                : _("## Kernel timeline (traced kernels)\n\n| |"),
        out);
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->kstats[i].nkernels > 0)
      fprintf(out, " GPU %d |", dx->ledgers[i].gpu);
  fputs("\n|---|", out);
  for (int i = 0; i < dx->ngpus; i++)
    if (dx->kstats[i].nkernels > 0)
      fputs("---:|", out);
  fputs("\n", out);
  for (int r = 0; r < GW_KFACT_COUNT; r++) {
    if (r == GW_KFACT_WINDOW_GAPS && !sampled)
      continue;
    fprintf(out, "| %s |", gw_kernel_fact_label((enum gw_kernel_fact_id)r));
    for (int i = 0; i < dx->ngpus; i++) {
      char v[160];
      if (dx->kstats[i].nkernels <= 0)
        continue;
      gw_kernel_fact_value(&dx->kstats[i], (enum gw_kernel_fact_id)r, v, sizeof v);
      fprintf(out, " %s |", v);
    }
    fputs("\n", out);
  }
  fputs("\n", out);
}

void gw_render_md(const struct gw_diagnosis *dx, FILE *out) {
  fprintf(out, _("# gpuwhy report: %s\n\n"), gw_render_basename(dx->path));
  if (strcmp(dx->verdict, "no_data") == 0)
    fputs(_("**Verdict: no data.** No GPU did any work in this recording.\n\n"), out);
  else if (strcmp(dx->verdict, "unexplained") == 0 && dx->nfindings > 0)
    fprintf(out,
            _("**Verdict: unexplained.** %.0f%% of the active GPU time was lost; the largest class found, %s, "
              "explains %.0f%% of it, too little to name; the next experiments would decide.\n\n"),
            dx->lost_ns / dx->active_ns * 100, dx->findings[0].class_id, dx->findings[0].share_of_lost * 100);
  else if (strcmp(dx->verdict, "unexplained") == 0)
    fprintf(out,
            _("**Verdict: unexplained.** %.0f%% of the active GPU time was lost and no class's evidence holds; the "
              "next experiments would decide.\n\n"),
            dx->lost_ns / dx->active_ns * 100);
  else if (dx->nfindings == 0 && dx->demand_limited)
    fprintf(out,
            _("**Verdict: none (demand-limited).** The GPU lost %.0f%% of its active time waiting for work that had "
              "not arrived; nothing in the program stalled it (see the notes).\n\n"),
            dx->lost_ns / dx->active_ns * 100);
  else if (dx->nfindings == 0 && dx->sm_blind)
    fprintf(out,
            _("**Verdict: none seen, but the GPU's work was not measured.** A kernel was resident %.0f%% of the active "
              "time (GPU-Util); without GPM or a kernel trace, batches too small to fill the GPU look the same. The "
              "experiment below decides.\n\n"),
            dx->active_ns > 0 ? (1 - dx->lost_ns / dx->active_ns) * 100 : 0);
  else if (dx->nfindings == 0)
    fprintf(out,
            _("**Verdict: none.** The GPUs did real work (or ran at their power limit) for %.0f%% of their "
              "active time. Nothing here is worth fixing.\n\n"),
            dx->active_ns > 0 ? (1 - dx->lost_ns / dx->active_ns) * 100 : 0);
  else
    fprintf(out,
            _("**Verdict: %s** (`%s`): %.0f%% of the lost GPU time (%.0f%% of the active time was lost), "
              "confidence %.2f.\n\n"),
            gw_class_title(dx->findings[0].class_id, 1), dx->findings[0].class_id, dx->findings[0].share_of_lost * 100,
            dx->active_ns > 0 ? dx->lost_ns / dx->active_ns * 100 : 0, dx->findings[0].confidence);
  char activity[768]; /* what the samples saw the thread do behind an unexplained loss */
  if (strcmp(dx->verdict, "unexplained") == 0 &&
      gw_idle_largest_activity_text(dx->attr, dx->ngpus, activity, sizeof activity))
    fprintf(out, "%s\n\n", activity);
  if (dx->ngpus > 0) {
    fputs(dx->estimated ? _("## GPU time ledger (estimated from counters)\n\n| row |")
                        : _("## GPU time ledger (from the timeline)\n\n| row |"),
          out);
    for (int i = 0; i < dx->ngpus; i++)
      fprintf(out, " GPU %d |", dx->ledgers[i].gpu);
    fprintf(out, "\n|---|");
    for (int i = 0; i < dx->ngpus; i++)
      fprintf(out, "---:|");
    fprintf(out, "\n");
    for (int r = 0; r < GW_LEDGER_NROWS; r++) {
      fprintf(out, "| %s |", gw_row_title(gw_diagnosis_row_title_id(dx, r)));
      for (int i = 0; i < dx->ngpus; i++) {
        if (!dx->ledgers[i].measured[r])
          fprintf(out, " - |");
        else
          fprintf(out, " %.1f%% |", gw_render_row_share(&dx->ledgers[i], r) * 100);
      }
      fprintf(out, "\n");
    }
    fprintf(out, "\n");
  }
  gw_mfu_facts_text(dx, out, "**", "**");
  if (dx->multi)
    md_multi_gpu(dx->multi, out);
  md_kernels(dx, out);
  if (dx->nfindings > 0) {
    fputs(_("## Findings\n\n"), out);
    for (int i = 0; i < dx->nfindings; i++) {
      const struct gw_finding *f = &dx->findings[i];
      fprintf(out, _("### %d. %s (`%s`)\n\n%.0f%% of lost GPU time (%.0f%% of active time), confidence %.2f.\n\n"),
              i + 1, gw_class_title(f->class_id, 1), f->class_id, f->share_of_lost * 100, f->share_of_active * 100,
              f->confidence);
      if (f->speedup_max > GW_SPEEDUP_SHOWN_MAX)
        fprintf(out,
                _("This class holds nearly all of the active time: removing it would make the run more than %.0fx "
                  "faster.\n\n"),
                GW_SPEEDUP_SHOWN_MAX);
      else
        fprintf(out, _("Removing this time entirely would make the run at most %.2fx faster.\n\n"), f->speedup_max);
      for (int e = 0; e < f->nevidence; e++) {
        char line[GW_TEXT];
        gw_evidence_text(&f->evidence[e], 1, line, sizeof line);
        fprintf(out, "- %s", line);
        if (f->evidence[e].t0_ns || f->evidence[e].t1_ns)
          fprintf(out, _(" (%.1f s to %.1f s)"), gw_render_rel_s(dx, f->evidence[e].t0_ns),
                  gw_render_rel_s(dx, f->evidence[e].t1_ns));
        fprintf(out, "\n");
      }
      fputs(_("\nTry, cheapest first:\n\n"), out);
      for (int k = 0; k < f->nfixes; k++)
        fprintf(out, "%d. %s: %s\n", k + 1, gw_fix_what(&f->fixes[k], 1), gw_fix_why(&f->fixes[k], 1));
      fprintf(out, "\n");
    }
  }
  char note[GW_TEXT];
  if (dx->ninterp > 0) {
    fputs(_("## Reading the numbers\n\n"), out);
    for (int i = 0; i < dx->ninterp; i++) {
      gw_note_text(&dx->interp[i], 1, note, sizeof note);
      fprintf(out, "- %s\n", note);
    }
    fprintf(out, "\n");
  }
  if (dx->nexperiments > 0) {
    fputs(_("## Next experiments\n\n"), out);
    for (int i = 0; i < dx->nexperiments; i++) {
      gw_note_id_text(dx->experiments[i].why_id, 1, note, sizeof note);
      fprintf(out, "```\n%s\n```\n%s\n\n", dx->experiments[i].what, note);
    }
  }
  if (dx->nnotes > 0) {
    fputs(_("## Notes\n\n"), out);
    for (int i = 0; i < dx->nnotes; i++) {
      gw_note_text(&dx->notes[i], 1, note, sizeof note);
      fprintf(out, "- %s\n", note);
    }
  }
}
