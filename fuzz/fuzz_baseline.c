/* A saved baseline (schema gpuwhy.baseline, docs/compare.md): what
 * `gpuwhy baseline check` and `baseline list` read from
 * $GPUWHY_HOME/baselines, through lib/core/json_path.h. Files there can
 * be copied from other machines or edited by hand. */
#include "compare/baseline_file.h"
#include "compare/run_summary.h"
#include "compare/run_load.h"
#include "fuzz_util.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static char path[600];
  if (!path[0])
    fuzz_path(path, sizeof path, "base.json");
  fuzz_write_file(path, data, size);

  struct gw_baseline_info info;
  struct gw_err err = {{0}};
  if (gw_baseline_file_info(path, &info, &err) == GW_OK) {
    FUZZ_CHECK(fuzz_terminated(info.name, sizeof info.name));
    FUZZ_CHECK(fuzz_terminated(info.recording, sizeof info.recording));
  } else {
    FUZZ_CHECK(err.msg[0] != '\0');
  }

  /* The summary loader decides by the first byte: '{' reads a baseline. */
  struct gw_run_summary *s = calloc(1, sizeof *s);
  err.msg[0] = '\0';
  if (gw_run_summary_load(path, s, &err) == GW_OK) {
    FUZZ_CHECK(s->from_baseline);
    FUZZ_CHECK(s->nsteps == 0 || s->step_s != NULL);
    FUZZ_CHECK(s->nfindings >= 0 && s->nfindings <= GW_MAX_FINDINGS);
    FUZZ_CHECK(s->setup.argc >= 0 && s->setup.nenv >= 0);
    gw_run_summary_free(s);
  } else {
    FUZZ_CHECK(err.msg[0] != '\0');
  }
  free(s);
  return 0;
}
