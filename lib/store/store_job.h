/* Which job a recording belongs to, so that `report A.db B.db` joins only
 * recordings of one job (one per node) and refuses unrelated runs. */
#ifndef GW_STORE_JOB_H
#define GW_STORE_JOB_H

#include <stdint.h>

#include "../core/util.h"

struct gw_store_job {
  int64_t started_ns, ended_ns; /* 0: unknown */
  char hostname[256];
  char run_id[64]; /* meta.run_id, written since recordings know their job; "" before */
  /* The launcher's id of the job, "" when the recording has none: the first
   * of TORCHELASTIC_RUN_ID, SLURM_JOB_ID, MASTER_ADDR:MASTER_PORT in env. */
  char job_id[320];
  int world_size, rank; /* from env WORLD_SIZE / RANK, -1 unknown */
};

struct gw_store;
/* The job facts of an open recording (a loaded recording's rec->store). */
void gw_store_job_of(struct gw_store *st, struct gw_store_job *job);

/* Whether recordings a and b can be parts of one job, and if not why. */
enum gw_job_match {
  GW_JOB_MATCH,        /* overlapping in time, no id that differs */
  GW_JOB_SAME_RUN,     /* the same run_id: one recording twice (a copy) */
  GW_JOB_OTHER_ID,     /* both name their job, and the ids differ */
  GW_JOB_APART,        /* recorded at times that do not overlap */
  GW_JOB_TIME_UNKNOWN, /* a start or end is not known: no evidence of one job */
};
enum gw_job_match gw_store_jobs_match(const struct gw_store_job *a, const struct gw_store_job *b);

/* A fresh random id for a new recording (32 hex digits), for meta.run_id. */
void gw_store_new_run_id(char *out, size_t cap);

#endif
