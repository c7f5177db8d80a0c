/* The finding of one bottleneck class in a diagnosis. Header-only. */
#ifndef GW_SUPPORT_FINDINGS_H
#define GW_SUPPORT_FINDINGS_H

#include <string.h>

#include "analysis/diagnosis.h"

/* dx's finding of class_id; NULL where the class did not fire. */
static inline const struct gw_finding *support_finding(const struct gw_diagnosis *dx, const char *class_id) {
  for (int i = 0; i < dx->nfindings; i++)
    if (strcmp(dx->findings[i].class_id, class_id) == 0)
      return &dx->findings[i];
  return NULL;
}

#endif
