#include "analysis/goodput.h"

#include <string.h>

const char *gw_badput_id(enum gw_badput b) {
  static const char *const ids[GW_BADPUT_N] = {"startup_compile", "data_wait", "checkpoint",
                                               "evaluation",      "sync",      "other"};
  return b >= 0 && b < GW_BADPUT_N ? ids[b] : "?";
}

void gw_goodput_from_ledger(const struct gw_ledger *l, double compile_s, int checkpoint_writes,
                            struct gw_goodput *out) {
  memset(out, 0, sizeof *out);
  const double *r = l->row_ns;
  out->wall_s = (double)l->wall_ns / 1e9;
  /* every row lands in one bucket: unmeasured rows hold 0 ns */
  out->goodput_s = (r[GW_ROW_PRODUCTIVE] + r[GW_ROW_UNDERFILLED] + r[GW_ROW_THROTTLED]) / 1e9;
  out->badput_s[GW_BADPUT_STARTUP_COMPILE] = r[GW_ROW_STARTUP] / 1e9;
  out->badput_s[GW_BADPUT_DATA_WAIT] = r[GW_ROW_IDLE_INPUT] / 1e9;
  out->badput_s[checkpoint_writes ? GW_BADPUT_CHECKPOINT : GW_BADPUT_EVALUATION] = r[GW_ROW_IDLE_PERIODIC] / 1e9;
  out->badput_s[GW_BADPUT_SYNC] = (r[GW_ROW_IDLE_SYNC] + r[GW_ROW_IDLE_COMM]) / 1e9;
  double other_s = (r[GW_ROW_IDLE_LAUNCH] + r[GW_ROW_IDLE_OTHER]) / 1e9;
  /* compilation inside steps leaves the GPU idle without a named cause: it is "other" idle time */
  double moved = compile_s > 0 ? (compile_s < other_s ? compile_s : other_s) : 0;
  out->badput_s[GW_BADPUT_STARTUP_COMPILE] += moved;
  out->badput_s[GW_BADPUT_OTHER] = other_s - moved;
}

void gw_goodput_add(struct gw_goodput *job, const struct gw_goodput *gpu) {
  job->wall_s += gpu->wall_s;
  job->goodput_s += gpu->goodput_s;
  for (int b = 0; b < GW_BADPUT_N; b++)
    job->badput_s[b] += gpu->badput_s[b];
}

double gw_goodput_compile_s(const struct gw_recording *rec) {
  double s = 0;
  for (size_t i = 0; i < rec->nsteps; i++)
    if (rec->steps[i].compile_ns > 0)
      s += (double)rec->steps[i].compile_ns / 1e9;
  return s;
}
