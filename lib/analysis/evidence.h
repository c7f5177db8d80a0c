/* Evidence as data: what a rule saw, as a stable id, the GPU, the time range
 * and named numbers with their units. No words: the sentence people read is
 * made from the id at render time (render/evidence_text.c holds the message
 * of each id), so the diagnosis is the same in every language. */
#ifndef GW_EVIDENCE_H
#define GW_EVIDENCE_H

#include <stdint.h>

#define GW_EVIDENCE_MAX_VALUES 8
/* a GPU label ("host-b GPU 1"), a list of NCCL transports, or the reason a
 * recording has no GPU data (a note's value: gw_recording.gpu_note, 256) */
#define GW_EVIDENCE_VALUE_TEXT 256

enum gw_unit {
  GW_UNIT_FRACTION,    /* a share, 0..1 (or a difference of shares); sentences show it as a percentage */
  GW_UNIT_PCT,         /* a counter that is a percentage already (GPU-Util, SM activity, CPU of one core) */
  GW_UNIT_POINTS,      /* a difference of two percentages */
  GW_UNIT_RATIO,       /* a quotient of two like quantities, shown as it is */
  GW_UNIT_CORRELATION, /* Pearson correlation or autocorrelation, -1..1 */
  GW_UNIT_COUNT,
  GW_UNIT_CORES,
  GW_UNIT_W,
  GW_UNIT_MHZ,
  GW_UNIT_S,
  GW_UNIT_MS,
  GW_UNIT_US,
  GW_UNIT_GB_PER_S,
  GW_UNIT_MB_PER_S,
  GW_UNIT_GIB, /* memory in GiB (2^30 bytes) */
  GW_UNIT_PER_MIN,
  GW_UNIT_RANK,     /* an NCCL rank */
  GW_UNIT_PSTATE,   /* a performance state number: 0 is P0 */
  GW_UNIT_PCIE_GEN, /* a PCIe generation */
  GW_UNIT_LANES,    /* a PCIe link width */
  GW_UNIT_TEXT,     /* a name as it is (a GPU label, NCCL transports) */
  GW_UNIT_PHRASE,   /* words translated with the sentence: a phrase id render/label_text.c words (an idle
                       cause's, gw_idle_cause_phrase, or one of its phrase table: "p2p_unavailable") */
  GW_UNIT_CLAUSE,   /* the id of another row of the same message table, worded with the same values; "" for none */
};

struct gw_evidence_value {
  const char *name; /* snake_case, fixed: a static string */
  enum gw_unit unit;
  double number;                     /* NAN for text */
  char text[GW_EVIDENCE_VALUE_TEXT]; /* GW_UNIT_TEXT and GW_UNIT_PHRASE */
};

struct gw_evidence {
  const char *id;       /* stable snake_case id, a row of the message table (render/evidence_text.c) */
  int gpu;              /* the GPU's number in the report (gw_gpu_profile.gpu); -1 for the host or the whole job */
  int64_t t0_ns, t1_ns; /* time range the numbers come from (CLOCK_REALTIME); 0, 0 when run-wide facts */
  int nvalues;
  struct gw_evidence_value values[GW_EVIDENCE_MAX_VALUES];
};

/* One value as a rule hands it over: GW_NUM, GW_TEXT_VALUE or GW_PHRASE. */
struct gw_evidence_arg {
  const char *name;
  enum gw_unit unit;
  double number;
  const char *text;
};
#define GW_NUM(name, unit, number)                                                                                     \
  { (name), (unit), (number), 0 }
#define GW_TEXT_VALUE(name, text)                                                                                      \
  { (name), GW_UNIT_TEXT, 0, (text) }
#define GW_PHRASE(name, msgid)                                                                                         \
  { (name), GW_UNIT_PHRASE, 0, (msgid) }
#define GW_CLAUSE(name, id)                                                                                            \
  { (name), GW_UNIT_CLAUSE, 0, (id) }

/* Fills e with id, the GPU, the time range and nargs values (past
 * GW_EVIDENCE_MAX_VALUES dropped; texts cut to GW_EVIDENCE_VALUE_TEXT). */
void gw_evidence_set(struct gw_evidence *e, const char *id, int gpu, int64_t t0_ns, int64_t t1_ns, int nargs,
                     const struct gw_evidence_arg *args);

/* The value named name, or NULL. */
const struct gw_evidence_value *gw_evidence_value(const struct gw_evidence *e, const char *name);
/* The unit's name in JSON: "fraction", "pct", "W", ... */
const char *gw_unit_name(enum gw_unit unit);

#endif
