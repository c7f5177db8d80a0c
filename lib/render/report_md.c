/* Markdown report: the same content as the terminal text, as tables and
 * lists for issues, wikis and pull requests. */
#include <string.h>

#include "core/i18n.h"
#include "render/report_render.h"

void gw_render_md(const struct gw_diagnosis *dx, FILE *out) {
  fprintf(out, _("# gpuwhy report: %s\n\n"), gw_render_basename(dx->path));
  if (strcmp(dx->verdict, "no_data") == 0)
    fputs(_("**Verdict: no data.** No GPU did any work in this recording.\n\n"), out);
  else if (dx->nfindings == 0)
    fprintf(out,
            _("**Verdict: none.** The GPUs did real work (or ran at their power limit) for %.0f%% of their "
              "active time. Nothing here is worth fixing.\n\n"),
            dx->active_ns > 0 ? (1 - dx->lost_ns / dx->active_ns) * 100 : 0);
  else
    fprintf(out, _("**Verdict: %s** (`%s`): %.0f%% of the lost GPU time, confidence %.2f.\n\n"), dx->findings[0].title,
            dx->findings[0].class_id, dx->findings[0].share_of_lost * 100, dx->findings[0].confidence);
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
      fprintf(out, "| %s |", gw_ledger_row_title((enum gw_ledger_row)r));
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
  if (dx->nfindings > 0) {
    fputs(_("## Findings\n\n"), out);
    for (int i = 0; i < dx->nfindings; i++) {
      const struct gw_finding *f = &dx->findings[i];
      fprintf(out, _("### %d. %s (`%s`)\n\n%.0f%% of lost GPU time (%.0f%% of active time), confidence %.2f.\n\n"),
              i + 1, f->title, f->class_id, f->share_of_lost * 100, f->share_of_active * 100, f->confidence);
      for (int e = 0; e < f->nevidence; e++) {
        fprintf(out, "- %s", f->evidence[e].text);
        if (f->evidence[e].t0_ns || f->evidence[e].t1_ns)
          fprintf(out, _(" (%.1f s to %.1f s)"), gw_render_rel_s(dx, f->evidence[e].t0_ns),
                  gw_render_rel_s(dx, f->evidence[e].t1_ns));
        fprintf(out, "\n");
      }
      fputs(_("\nTry, cheapest first:\n\n"), out);
      for (int k = 0; k < f->nfixes; k++)
        fprintf(out, "%d. %s: %s\n", k + 1, f->fixes[k].what, f->fixes[k].why);
      fprintf(out, "\n");
    }
  }
  if (dx->ninterp > 0) {
    fputs(_("## Reading the numbers\n\n"), out);
    for (int i = 0; i < dx->ninterp; i++)
      fprintf(out, "- %s\n", dx->interp[i]);
    fprintf(out, "\n");
  }
  if (dx->nexperiments > 0) {
    fputs(_("## Next experiments\n\n"), out);
    for (int i = 0; i < dx->nexperiments; i++)
      fprintf(out, "```\n%s\n```\n%s\n\n", dx->experiments[i].what, dx->experiments[i].why);
  }
  if (dx->nnotes > 0) {
    fputs(_("## Notes\n\n"), out);
    for (int i = 0; i < dx->nnotes; i++)
      fprintf(out, "- %s\n", dx->notes[i]);
  }
}
