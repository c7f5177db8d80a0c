/* A seventh bottleneck class that exists only in the test build
 * (tests/CMakeLists.txt: gpuwhy_lib_rule7). It is written the way a real class
 * is: this rule file with its registry row, one line in the registry
 * (rule_registry_extra.h, which lib/analysis/rule_registry.h includes only
 * when GW_EXTRA_RULES names it), the message of its evidence id
 * (evidence_messages_extra.h, a row of lib/render/evidence_text.c's table),
 * the words of its fix id (fix_messages_extra.h, a row of
 * lib/render/fix_text.c's table) and its title and explain texts
 * (class_messages_extra.h, a row of lib/render/class_text.c's table). It
 * fires on every recording with active GPU time, with fixed numbers the test
 * looks for in each report format. */
#include "analysis/rules.h"

static int test_always_fires(const struct gw_rule_input *in, struct gw_finding *f) {
  const struct gw_gpu_profile *p = in->dx->ngpus ? &in->dx->profiles[0] : NULL;
  f->share_of_active = 0.0123; /* small, so it ranks after every real finding */
  f->confidence = 0.77;
  gw_evidence(f, "test_always_gpus", p ? p->gpu : -1, p ? p->active_start_ns : 0, p ? p->active_end_ns : 0,
              GW_NUM("gpus", GW_UNIT_COUNT, in->dx->ngpus));
  gw_finding_fix(f, "test_always.nothing");
  return 1;
}

const struct gw_rule gw_class_test_always = {"test_always", GW_ROW_IDLE_OTHER, test_always_fires};
