#include "evidence.h"

#include <math.h>
#include <string.h>

#include "core/util.h"

const struct gw_evidence_value *gw_evidence_value(const struct gw_evidence *e, const char *name) {
  for (int i = 0; i < e->nvalues; i++)
    if (strcmp(e->values[i].name, name) == 0)
      return &e->values[i];
  return NULL;
}

void gw_evidence_set(struct gw_evidence *e, const char *id, int gpu, int64_t t0_ns, int64_t t1_ns, int nargs,
                     const struct gw_evidence_arg *args) {
  memset(e, 0, sizeof *e);
  e->id = id;
  e->gpu = gpu;
  e->t0_ns = t0_ns;
  e->t1_ns = t1_ns;
  for (int i = 0; i < nargs && e->nvalues < GW_EVIDENCE_MAX_VALUES; i++) {
    struct gw_evidence_value *v = &e->values[e->nvalues++];
    v->name = args[i].name;
    v->unit = args[i].unit;
    int text = args[i].unit == GW_UNIT_TEXT || args[i].unit == GW_UNIT_PHRASE || args[i].unit == GW_UNIT_CLAUSE;
    v->number = text ? NAN : args[i].number;
    if (text)
      gw_strlcpy(v->text, args[i].text ? args[i].text : "", sizeof v->text);
  }
}

const char *gw_unit_name(enum gw_unit unit) {
  switch (unit) {
  case GW_UNIT_FRACTION:
    return "fraction";
  case GW_UNIT_PCT:
    return "pct";
  case GW_UNIT_POINTS:
    return "points";
  case GW_UNIT_RATIO:
    return "ratio";
  case GW_UNIT_CORRELATION:
    return "correlation";
  case GW_UNIT_COUNT:
    return "count";
  case GW_UNIT_CORES:
    return "cores";
  case GW_UNIT_W:
    return "W";
  case GW_UNIT_MHZ:
    return "MHz";
  case GW_UNIT_S:
    return "s";
  case GW_UNIT_MS:
    return "ms";
  case GW_UNIT_US:
    return "us";
  case GW_UNIT_GB_PER_S:
    return "GB/s";
  case GW_UNIT_MB_PER_S:
    return "MB/s";
  case GW_UNIT_GIB:
    return "GiB";
  case GW_UNIT_PER_MIN:
    return "per_min";
  case GW_UNIT_RANK:
    return "rank";
  case GW_UNIT_PSTATE:
    return "pstate";
  case GW_UNIT_PCIE_GEN:
    return "pcie_gen";
  case GW_UNIT_LANES:
    return "lanes";
  case GW_UNIT_TEXT:
  case GW_UNIT_PHRASE:
    return "text";
  case GW_UNIT_CLAUSE:
    return "clause";
  }
  return "unknown";
}
