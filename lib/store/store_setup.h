/* What tells two runs apart, read from a recording for compare, baseline and
 * sweep (lib/compare/run_setup.c): host, driver, command line, environment
 * knobs, GPU models, the declared change, and the labels in the meta table.
 * The SQL stays here; compare sees values. */
#ifndef GW_STORE_SETUP_H
#define GW_STORE_SETUP_H

#include "../core/util.h"

struct gw_store;

/* The run row's facts; "" when unknown. Sizes are those of struct
 * gw_run_setup, so nothing is cut twice. */
struct gw_store_setup_facts {
  char hostname[256];
  char driver_version[96];
  int cuda_driver_known, cuda_driver_version;
  char change[1024]; /* meta 'change', "" when none */
};

/* The lists, one entry per call. */
struct gw_store_setup_lists {
  void *ctx;
  /* run.command's entries in order; none when the command is not a JSON array */
  void (*arg)(void *ctx, const char *arg);
  /* the environment knobs, by name */
  void (*env)(void *ctx, const char *name, const char *value);
  /* each GPU model with how many GPUs have it, in the order of their lowest index */
  void (*gpu_model)(void *ctx, const char *name, int count);
};

/* GW_EINPUT with a message naming the file when the run table cannot be
 * read; the other tables are optional (their absence leaves lists empty). */
GW_NODISCARD gw_status gw_store_read_setup(struct gw_store *st, struct gw_store_setup_facts *facts,
                                           const struct gw_store_setup_lists *lists, struct gw_err *err);

/* The meta table's value of key into buf: 0, or -1 when there is none. */
int gw_store_read_meta(struct gw_store *st, const char *key, char *buf, size_t cap);

#endif
