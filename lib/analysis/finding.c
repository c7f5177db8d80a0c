/* Filling a finding (see finding.h). */
#include "analysis/finding.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

void gw_finding_add_evidence(struct gw_finding *f, const char *id, int gpu, int64_t t0_ns, int64_t t1_ns, int nargs,
                             const struct gw_evidence_arg *args) {
  if (f->nevidence >= GW_MAX_EVIDENCE)
    return;
  struct gw_evidence *e = &f->evidence[f->nevidence++];
  memset(e, 0, sizeof *e);
  e->id = id;
  e->gpu = gpu;
  e->t0_ns = t0_ns;
  e->t1_ns = t1_ns;
  for (int i = 0; i < nargs && e->nvalues < GW_EVIDENCE_MAX_VALUES; i++) {
    struct gw_evidence_value *v = &e->values[e->nvalues++];
    v->name = args[i].name;
    v->unit = args[i].unit;
    int text = args[i].unit == GW_UNIT_TEXT || args[i].unit == GW_UNIT_PHRASE;
    v->number = text ? NAN : args[i].number;
    if (text)
      gw_strlcpy(v->text, args[i].text ? args[i].text : "", sizeof v->text);
  }
}

void gw_finding_fix(struct gw_finding *f, const char *id) {
  if (f->nfixes >= GW_MAX_FIXES)
    return;
  f->fixes[f->nfixes].id = id;
  f->nfixes++;
}
