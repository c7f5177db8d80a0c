/* Names of the activity enums (activity.h), as JSON and the docs spell them. */
#include "activity.h"

#include <stddef.h>
#include <string.h>
#include <strings.h>

static const char *name_in(const char *const *names, size_t n, int v, const char *fallback) {
  return v >= 0 && (size_t)v < n ? names[v] : fallback;
}

#define NAME_IN(table, v, fallback) name_in(table, sizeof table / sizeof table[0], v, fallback)

const char *gw_thread_state_name(int v) {
  static const char *const names[] = {"unknown", "running", "sleeping", "disk", "stopped", "other"};
  return NAME_IN(names, v, "unknown");
}

const char *gw_thread_role_name(int v) {
  static const char *const names[] = {"other", "main", "autograd", "loader_worker", "pin_memory", "nccl", "helper"};
  return NAME_IN(names, v, "other");
}

const char *gw_wait_kind_name(int v) {
  static const char *const names[] = {"none", "futex", "poll", "net", "pipe", "disk", "sleep", "gpu", "other"};
  return NAME_IN(names, v, "other");
}

const char *gw_py_activity_name(int v) {
  static const char *const names[GW_PYACT_COUNT] = {
      "other",   "data_wait", "data_inline",      "h2d",        "sync", "checkpoint", "eval", "logging",
      "compile", "optimizer", "forward_backward", "collective", "idle"};
  return NAME_IN(names, v, "other");
}

/* The words of a function name that say it writes a checkpoint. The hook
 * sees Python frames only: the C calls a checkpoint makes (copies of the
 * state to the host, a file's writes and close) leave the user's own line as
 * the innermost frame, which in a loop without a DataLoader reads as data
 * made inline. A function named for a checkpoint is writing one, as one
 * named for an evaluation is evaluating (the hook's _EVAL_NAME). */
static const char *const CHECKPOINT_WORDS[] = {"checkpoint", "checkpoints", "checkpointing", "ckpt"};
static const char *const SAVE_WHAT[] = {"model", "state", "weights"};

static int word_in(const char *w, size_t n, const char *const *words, size_t nwords) {
  for (size_t i = 0; i < nwords; i++)
    if (strlen(words[i]) == n && strncasecmp(w, words[i], n) == 0)
      return 1;
  return 0;
}

int gw_py_func_names_checkpoint(const char *qualname) {
  if (!qualname)
    return 0;
  const char *name = strrchr(qualname, '.');
  name = name ? name + 1 : qualname;
  /* save_model, save_state, save_weights, and longer names that start so */
  if (strncasecmp(name, "save_", 5) == 0) {
    size_t n = strcspn(name + 5, "_");
    if (word_in(name + 5, n, SAVE_WHAT, sizeof SAVE_WHAT / sizeof SAVE_WHAT[0]))
      return 1;
  }
  for (const char *w = name; *w;) {
    size_t n = strcspn(w, "_");
    if (word_in(w, n, CHECKPOINT_WORDS, sizeof CHECKPOINT_WORDS / sizeof CHECKPOINT_WORDS[0]))
      return 1;
    w += n;
    w += *w == '_';
  }
  return 0;
}
