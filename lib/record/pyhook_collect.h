/* Steps from inside PyTorch: the recorder puts the Python start-up hook
 * (tracer/python/gpuwhy_hook, a sitecustomize.py) first on the command's
 * PYTHONPATH and names a spool folder in GPUWHY_PY_SPOOL_DIR; every Python
 * process appends its steps and events to py-PID.steps there, and this module
 * moves the complete lines into the recording's step and event tables, and
 * the training thread's stack samples (F and P lines) into py_frame and
 * py_sample, the per-process frame ids made the recording's own. */
#ifndef GW_PYHOOK_COLLECT_H
#define GW_PYHOOK_COLLECT_H

#include "core/sample.h"
#include "core/util.h"
#include "store/store.h"
#include <gpuwhy/record.h>

struct gw_pyhook_collect;

/* Where the hook's folder is: GPUWHY_PYTHON_HOOK_DIR, else beside the binary
 * (python/gpuwhy_hook in the build tree, ../share/gpuwhy/python/gpuwhy_hook
 * installed). 0 when found. */
int gw_pyhook_find_dir(char *out, size_t cap);
/* dir: the spool folder, created if missing; old py-*.steps files in it are removed. */
GW_NODISCARD gw_status gw_pyhook_collect_open(struct gw_pyhook_collect **out, const char *dir, const char *hook_dir,
                                              struct gw_store *store, struct gw_err *err);
/* In the child before exec: the hook's folder first on PYTHONPATH and the spool folder. */
void gw_pyhook_collect_child_env(const struct gw_pyhook_collect *pc);
/* Each step taken in from now on is also handed to on_step (NULL: none). */
void gw_pyhook_collect_watch(struct gw_pyhook_collect *pc,
                             void (*on_step)(void *ctx, const struct gw_python_step *step), void *ctx);
/* Move the complete lines that appeared since the last call. */
void gw_pyhook_collect_poll(struct gw_pyhook_collect *pc, const struct gw_event_sink *events);
/* The last lines; a process's DataLoader-iteration steps are dropped where
 * the same process has optimizer steps (they were the loop before the first
 * optimizer step, not steps). */
void gw_pyhook_collect_finish(struct gw_pyhook_collect *pc, const struct gw_event_sink *events);
uint64_t gw_pyhook_collect_steps(const struct gw_pyhook_collect *pc);
uint64_t gw_pyhook_collect_bad_lines(const struct gw_pyhook_collect *pc);
/* Stack samples (P lines) moved into py_sample. */
uint64_t gw_pyhook_collect_py_samples(const struct gw_pyhook_collect *pc);
/* The hook's event kind spelled name (the table's own string), NULL when the
 * hook writes no such kind: the spool's E lines take only these. */
const char *gw_pyhook_event_kind(const char *name);
/* The files and the folder are removed. */
void gw_pyhook_collect_close(struct gw_pyhook_collect *pc);

#endif
