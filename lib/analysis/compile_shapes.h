/* torch.compile time and step time per input shape, from the Python hook's
 * steps (compile_ns, shape) and its compile/recompile events
 * (docs/RECORDING.md): the evidence of shapes that change from step to step. */
#ifndef GW_ANALYSIS_COMPILE_SHAPES_H
#define GW_ANALYSIS_COMPILE_SHAPES_H

#include "analysis/evidence.h"
#include "store/store_model.h"

#define GW_SHAPES_SHOWN 3
/* The fewest first visits of new shapes that make a pattern, and the fewest
 * repeats that time a step without a new shape (gw_shape_stalls): one slow
 * step that happened to meet a new shape is no pattern. */
#define GW_STALL_MIN_FIRST_VISITS 3

struct gw_shape_first_visit {
  char shape[64];
  double first_s; /* the step of its first visit */
};

struct gw_compile_shapes {
  int64_t pid; /* the process whose steps are used (gw_step_process_pick), -1 every step */
  size_t nsteps;
  double step_total_s;
  int compile_known;      /* its steps carry compile_ns (a hook that records it) */
  double compile_s;       /* time in torch.compile inside the steps */
  int ids_known;          /* the compile events name dynamo's compile ids */
  int compiles;           /* compile events of the process inside its steps */
  int recompiles;         /* recompile events (one per recompiled frame, not per graph) */
  double recompile_s;     /* time of the compile events with a recompilation's id (F/N, N >= 1), backward included */
  double later_compile_s; /* without ids: compile time after the first step that compiled */
  char first_reason[GW_EVIDENCE_VALUE_TEXT]; /* dynamo's reason for the first recompilation; "" none */
  int shape_known;                           /* its steps carry shapes */
  int nshapes;                               /* distinct shapes */
  int first_visits;            /* steps that were the first of their shape, the process's first step not counted */
  double first_visit_s;        /* their time */
  double revisit_median_s;     /* median step of shapes seen before; NAN when none came twice */
  double first_visit_excess_s; /* first visits' time above that median (summed with sign, 0 at least); NAN unknown */
  int nshown;
  struct gw_shape_first_visit shown[GW_SHAPES_SHOWN]; /* slowest first visits, slowest first */
};

void gw_compile_shapes(const struct gw_recording *rec, struct gw_compile_shapes *out);

/* The share of the step time lost to recompiling or to first visits of new
 * shapes (the larger of the two), 0 when neither is known. */
double gw_compile_shapes_lost_share(const struct gw_compile_shapes *cs);

/* A step that was the first of its input shape and ran longer than a step of
 * that shape does once seen: re-planning kernels, autotuning, allocating or
 * compiling for the new shape. excess_frac is the share of the step's time
 * above that steady time (0..1). */
struct gw_shape_stall {
  int64_t start_ns, end_ns;
  double excess_frac;
};

/* The first visits of new shapes of process pid (-1: every step) that stalled
 * its loop, sorted by start; none (0) unless the shapes changed and their
 * first visits were, as a rule, slower than repeats, or most steps met a new
 * shape and too few repeated one to compare (each first visit then stands
 * whole, excess_frac 1; compile_shapes.c says how that is judged). *out is
 * malloc'd (NULL when none). */
size_t gw_shape_stalls(const struct gw_recording *rec, int64_t pid, struct gw_shape_stall **out);

/* "F/N ..." (or "!A/F/N", "F/N_k") with N >= 1: a recompilation of frame F. */
int gw_compile_id_is_recompile(const char *id);

#endif
