/* A source of the recorder: what it reads, how it opens, what it does each
 * tick, at the end of the recording and once the command has exited. The
 * sources are the lines of record/record_source_list.h, in one table
 * (record_sources.c); recorder.c opens, ticks, stops, finishes and closes
 * them in that order (closes in reverse). A new source is its module (a
 * const struct gw_record_source gw_record_source_<name>) plus one line. */
#ifndef GW_RECORD_SOURCE_H
#define GW_RECORD_SOURCE_H

#include <stddef.h>
#include <stdint.h>

struct gw_record_opts;
struct gw_store;
struct gw_event_sink;

/* What a source sees of the recording it feeds. */
struct gw_source_ctx {
  const struct gw_record_opts *o;
  struct gw_store *store;           /* NULL: no recording (watch without -o) */
  int target_pid;                   /* the command or --pid; 0 before the command starts */
  const struct gw_event_sink *sink; /* events into the recording; set before the first tick */
};

/* What is due on one tick of the recorder (the command's --interval). */
struct gw_source_tick {
  int64_t t_ns;   /* CLOCK_REALTIME */
  int second_due; /* about once a second */
  int rescan_due; /* every 2 s: look for new processes in the whole of /proc */
  int health_due; /* every 5 s: health counters, process lists */
  int rare_due;   /* every 30 s: dear reads (the energy counter) */
};

/* Which of the recorder's own CPU-time phases a source's ticks count to
 * (meta recorder_cpu_<phase>_s). */
enum gw_source_phase {
  GW_SOURCE_PHASE_GPU,
  GW_SOURCE_PHASE_HOST,
  GW_SOURCE_PHASE_KMSG,
  GW_SOURCE_PHASE_TRACE,
  GW_SOURCE_PHASE_STORE,
  GW_SOURCE_PHASE_COUNT
};

/* What a source needs; the recorder does not open it without. */
enum {
  GW_SOURCE_NEEDS_STORE = 1,   /* a recording to write (not watch without -o) */
  GW_SOURCE_NEEDS_COMMAND = 2, /* a command the recorder starts (not --pid): it sets the command's environment */
  GW_SOURCE_NEEDS_TARGET = 4,  /* a process to follow, started or --pid */
};

/* When a source opens. */
enum gw_source_opens {
  GW_SOURCE_OPENS_BEFORE_COMMAND, /* before the command starts: it may set the command's environment */
  GW_SOURCE_OPENS_AFTER_START,    /* once the target runs: it follows the target */
};

struct gw_record_source {
  const char *name;
  unsigned needs; /* GW_SOURCE_NEEDS_* bits */
  enum gw_source_opens opens;
  enum gw_source_phase phase;
  /* Sets *state (NULL: the source is off, said why if the user asked for
   * it) and returns 0; -1 with msg when the recording cannot be made
   * without it. After the command started (GW_SOURCE_OPENS_AFTER_START) the
   * recording goes on without it: msg is said and the source is off. */
  int (*open)(struct gw_source_ctx *c, void **state, char *msg, unsigned cap);
  /* The rest are called only for a source whose state is set; NULL: none. */
  /* In the child between fork and exec: the command's environment. */
  void (*child_env)(struct gw_source_ctx *c, void *state);
  void (*tick)(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t);
  /* The recording ends (at ended_ns), before waiting for the command. */
  void (*stop)(struct gw_source_ctx *c, void *state, int64_t ended_ns);
  /* The command has exited: the last of what it left. */
  void (*finish)(struct gw_source_ctx *c, void *state);
  /* Always called, state NULL or not (a source may leave files to remove). */
  void (*close)(struct gw_source_ctx *c, void *state);
};

/* The table, in order; *n is how many. */
const struct gw_record_source *const *gw_record_sources(size_t *n);

#endif
