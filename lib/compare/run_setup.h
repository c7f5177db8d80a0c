/* What a run was: its command line, environment knobs, host, driver and GPU,
 * and the change its author declared; and what differs between two runs,
 * leaving out what always differs (output paths, run names, labels). */
#ifndef GW_COMPARE_RUN_SETUP_H
#define GW_COMPARE_RUN_SETUP_H

#include "core/util.h"

struct gw_setup_kv {
  char *name, *value;
};

struct gw_run_setup {
  char stem[256]; /* recording file name without folder and .db: values naming it are labels */
  int argc;       /* 0 when the command was not recorded */
  char **argv;    /* from run.command */
  int nenv;       /* environment knobs, sorted by name */
  struct gw_setup_kv *env;
  char host[256];        /* hostname */
  char driver[96];       /* "580.159.04 (CUDA 13000)" */
  char gpu[192];         /* "NVIDIA H200", or "2 x NVIDIA H200" */
  char change[1024];     /* the declared change, "" none */
  char change_from[320]; /* where it was declared: the truth file's name or "meta" */
};

struct gw_store;

/* Fill the setup from an open recording. The stem comes from path. */
GW_NODISCARD gw_status gw_run_setup_load(struct gw_store *store, const char *path, struct gw_run_setup *f,
                                         struct gw_err *err);
/* Deep copy (for baselines that outlive the recording). */
void gw_run_setup_copy(struct gw_run_setup *dst, const struct gw_run_setup *src);
void gw_run_setup_free(struct gw_run_setup *f);
/* Add an argv entry or an environment knob (used when reading a baseline). */
void gw_run_setup_add_arg(struct gw_run_setup *f, const char *arg);
void gw_run_setup_add_env(struct gw_run_setup *f, const char *name, const char *value);

enum gw_change_kind {
  GW_CHANGE_PROGRAM,
  GW_CHANGE_ARG,
  GW_CHANGE_ENV,
  GW_CHANGE_HOST,
  GW_CHANGE_DRIVER,
  GW_CHANGE_GPU,
};
const char *gw_change_kind_id(enum gw_change_kind k); /* "program", "argument", ... */

struct gw_change {
  enum gw_change_kind kind;
  char what[128];               /* "--stage", "NCCL_ALGO", "host" */
  char before[256], after[256]; /* "" with *_set 0 when absent on that side */
  int before_set, after_set;
};

#define GW_MAX_CHANGES 32
#define GW_MAX_IGNORED 16

struct gw_change_list {
  int n; /* changes found; items holds the first GW_MAX_CHANGES */
  struct gw_change items[GW_MAX_CHANGES];
  int nignored; /* argument differences left out as bookkeeping */
  char ignored[GW_MAX_IGNORED][64];
  int commands_known; /* both runs recorded their command line */
};

/* Differences from a to b. ignore: extra option names (with or without
 * dashes) whose values never count as a change. */
void gw_run_setup_diff(const struct gw_run_setup *a, const struct gw_run_setup *b, const char *const *ignore,
                       int nignore, struct gw_change_list *out);

/* What changed, for people: c->what with "program", "host", "driver" and
 * "argument N" in the language of the messages. */
void gw_change_what(const struct gw_change *c, char *buf, size_t cap);
/* "--stage 0 -> 1", "NCCL_ALGO (unset) -> Ring" into buf, in the language of
 * the messages (for text and Markdown; JSON has the parts). */
void gw_change_describe(const struct gw_change *c, char *buf, size_t cap);

/* Value of command-line option name (dashes optional) in argv, or NULL. */
const char *gw_run_setup_option(const struct gw_run_setup *f, const char *name);

#endif
