/* Filling a finding (see finding.h). */
#include "analysis/finding.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

void gw_finding_add_evidence(struct gw_finding *f, const char *id, int gpu, int64_t t0_ns, int64_t t1_ns, int nargs,
                             const struct gw_evidence_arg *args) {
  if (f->nevidence >= GW_MAX_EVIDENCE)
    return;
  gw_evidence_set(&f->evidence[f->nevidence++], id, gpu, t0_ns, t1_ns, nargs, args);
}

void gw_finding_fix(struct gw_finding *f, const char *id) {
  if (f->nfixes >= GW_MAX_FIXES)
    return;
  f->fixes[f->nfixes].id = id;
  f->nfixes++;
}

void gw_finding_add_fixes(struct gw_finding *f, int n, const char *const *ids) {
  for (int i = 0; i < n; i++)
    gw_finding_fix(f, ids[i]);
}
