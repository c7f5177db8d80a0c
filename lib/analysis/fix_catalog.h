/* The fixes `gpuwhy experiment try` can have the Python hook apply with no
 * edit to the script (names and values: the hook's contract, docs/FIXES.md),
 * as data: what each addresses, what its throughput is compared in (what it
 * changes in the program's numerics is worded by render/fix_catalog_text.c,
 * keyed by name); and, from the diagnosis of a baseline
 * recording, the value to try and the speed-up it predicts with its bound. */
#ifndef GW_ANALYSIS_FIX_CATALOG_H
#define GW_ANALYSIS_FIX_CATALOG_H

#include "analysis/diagnosis_model.h"

enum gw_fix_value {
  GW_FIX_FLAG,  /* no value: pin_memory */
  GW_FIX_COUNT, /* a count >= 1, derived from the recording when not given: workers=6 */
  GW_FIX_BATCH, /* N or xK: batch_size=x2 */
};

struct gw_fix_kind {
  const char *name; /* as GPUWHY_PY_FIXES names it */
  enum gw_fix_value value;
  const char *addresses; /* the bottleneck classes and idle causes it acts on (ids, for JSON) */
  int per_sample;        /* compared in samples/s (the batch changes), else steps/s */
  int auto_pick;         /* tried without --fix when its cause was found */
  const char *needs;     /* a fix this one acts only with, applied in the same run ("" none) */
};

extern const struct gw_fix_kind gw_fix_kinds[];
extern const int gw_nfix_kinds;
const struct gw_fix_kind *gw_fix_kind_find(const char *name);

/* Why a prediction is what it is; render/fix_catalog_text.c words it. */
enum gw_fix_reason {
  GW_FIXR_NOT_FOUND,      /* the cause it addresses was not found */
  GW_FIXR_INPUT_FINDING,  /* the input_pipeline finding's share */
  GW_FIXR_INPUT_ATTR,     /* the measured data waits of the training thread */
  GW_FIXR_H2D,            /* the measured host-to-device copies */
  GW_FIXR_SMALL_BATCH,    /* the small_batch finding's share */
  GW_FIXR_TF32,           /* the productive share in float32 matmuls */
  GW_FIXR_TF32_UNKNOWN,   /* float32 share or the GPU's peaks unknown */
  GW_FIXR_NOT_MEASURABLE, /* nothing in a recording measures what it addresses (cudnn_benchmark) */
  GW_FIXR_BATCH_UNKNOWN,  /* batch_size=N without the recorded batch size: no bound */
};

/* One fix as tried. */
struct gw_fix_plan {
  const struct gw_fix_kind *kind;
  char text[64];          /* "workers=6": the GPUWHY_PY_FIXES item and the run's label */
  int given_value;        /* the value came from --fix, not from the recording */
  long count;             /* GW_FIX_COUNT: the value; GW_FIX_BATCH: N, or K when times */
  int times;              /* GW_FIX_BATCH: xK */
  char derivation[256];   /* how the value was derived from the recording (English), "" given */
  double addressed_share; /* of active (or wall) time, 0 when its cause was not found */
  double point, bound;    /* predicted throughput ratio and its bound; NAN unknown */
  enum gw_fix_reason reason;
};

/* What is wrong with a --fix argument; render/fix_catalog_text.c words it. */
enum gw_fix_parse_status {
  GW_FIX_PARSE_OK,
  GW_FIX_PARSE_NO_NAME,        /* empty, or a name too long to be one */
  GW_FIX_PARSE_UNKNOWN,        /* no fix of the catalogue has that name */
  GW_FIX_PARSE_TAKES_NO_VALUE, /* a flag given a value */
  GW_FIX_PARSE_BAD_COUNT,      /* not a count >= 1 */
  GW_FIX_PARSE_BAD_BATCH,      /* neither N nor xK with K >= 2 */
};

/* Parses NAME[=VALUE] (a --fix argument) into out: GW_FIX_PARSE_OK, or what
 * is wrong with it. */
enum gw_fix_parse_status gw_fix_parse(const char *arg, struct gw_fix_plan *out);

/* Fills the value left to derive and the prediction from the baseline's
 * diagnosis (dx NULL: no diagnosis, nothing predicted). */
void gw_fix_predict(const struct gw_diagnosis *dx, struct gw_fix_plan *p);

/* The catalogue's fixes whose cause the diagnosis found, predicted, cheapest
 * first: how many were written to out (at most cap). */
int gw_fix_applicable(const struct gw_diagnosis *dx, struct gw_fix_plan *out, int cap);

/* A prediction below this is "no change": the run-to-run spread of most
 * training jobs (as compare's GW_PRACTICAL_CHANGE). */
#define GW_FIX_NO_CHANGE 0.02

#endif
