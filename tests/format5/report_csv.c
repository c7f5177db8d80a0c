/* A fifth report format for test_fifth_format: the verdict and one line a
 * finding, comma separated. It reads the diagnosis only, as a renderer must. */
#include <stdio.h>

#include "analysis/diagnosis.h"
#include "report_formats_extra.h"

void gw_render_csv(const struct gw_diagnosis *dx, FILE *out, int color) {
  (void)color;
  fprintf(out, "kind,class,share_of_active,confidence\n");
  fprintf(out, "verdict,%s,,\n", dx->verdict ? dx->verdict : "");
  for (int i = 0; i < dx->nfindings; i++)
    fprintf(out, "finding,%s,%.4f,%.2f\n", dx->findings[i].class_id, dx->findings[i].share_of_active,
            dx->findings[i].confidence);
}
