/* The ledger as goodput and badput: every second of a GPU's wall time in
 * one bucket, so the buckets add up to the wall time, as the ledger's rows
 * do. Goodput is the GPU's working time (productive, underfilled and
 * throttled rows: the step advanced, however slowly); badput names why the
 * rest did not. */
#ifndef GW_GOODPUT_H
#define GW_GOODPUT_H

#include "analysis/ledger.h"
#include "store/store_model.h"

enum gw_badput {
  GW_BADPUT_STARTUP_COMPILE, /* before the first and after the last work, and torch.compile inside steps */
  GW_BADPUT_DATA_WAIT,       /* idle: input */
  GW_BADPUT_CHECKPOINT,      /* periodic pauses with disk writes */
  GW_BADPUT_EVALUATION,      /* periodic pauses without them */
  GW_BADPUT_SYNC,            /* idle: sync and communication */
  GW_BADPUT_OTHER,           /* idle: launch and other */
  GW_BADPUT_N
};

struct gw_goodput {
  double wall_s, goodput_s;
  double badput_s[GW_BADPUT_N];
};

/* "startup_compile", ... (JSON keys and Prometheus labels) */
const char *gw_badput_id(enum gw_badput b);

/* From a GPU's ledger; compile_s is the torch.compile time inside steps
 * (moved from "other" idle time, never more than it), checkpoint_writes: the
 * periodic pauses came with disk writes. */
void gw_goodput_from_ledger(const struct gw_ledger *l, double compile_s, int checkpoint_writes, struct gw_goodput *out);
/* job += gpu */
void gw_goodput_add(struct gw_goodput *job, const struct gw_goodput *gpu);
/* torch.compile time inside the steps of the recording's step table, 0 none */
double gw_goodput_compile_s(const struct gw_recording *rec);

#endif
