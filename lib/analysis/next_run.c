#include "analysis/next_run.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/util.h"

/* The option names programs use for the batch size (argparse spellings). */
static int batch_option(const char *a, size_t *name_len) {
  static const char *const names[] = {"--batch-size", "--batch_size", "--bs", "--batch"};
  for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
    size_t l = strlen(names[i]);
    if (strncmp(a, names[i], l) == 0 && (a[l] == '\0' || a[l] == '=')) {
      *name_len = l;
      return 1;
    }
  }
  return 0;
}

void gw_next_run_command(const struct gw_recording *rec, const char *tmpl, char *buf, size_t cap) {
  static const char marker[] = " -- CMD";
  static const char batch_tail[] = " --batch-size {bs}";
  gw_strlcpy(buf, tmpl, cap);
  const char *at = strstr(tmpl, marker);
  if (!rec || rec->command_argc <= 0 || !at)
    return;
  const char *tail = at + strlen(marker);
  int wants_batch = strcmp(tail, batch_tail) == 0, batch_done = 0;
  char *out = gw_xcalloc(cap ? cap : 1, 1);
  size_t used = 0;
  char word[1024];
  int ok = cap > (size_t)(at - tmpl) + 4;
  if (ok) {
    memcpy(out, tmpl, (size_t)(at - tmpl));
    used = (size_t)(at - tmpl);
    ok = gw_str_append(out, cap, &used, " --") == 0;
  }
  for (int i = 0; ok && i < rec->command_argc; i++) {
    const char *a = rec->command_argv[i];
    size_t nl = 0;
    if (wants_batch && !batch_done && i > 0 && batch_option(a, &nl)) {
      /* --batch-size=N: keep the name, {bs} for the value; --batch-size N: the next word */
      if (a[nl] == '=') {
        snprintf(word, sizeof word, "%.*s={bs}", (int)nl, a);
        ok = gw_str_append(out, cap, &used, " ") == 0 && gw_str_append(out, cap, &used, word) == 0;
        batch_done = 1;
        continue;
      }
      if (i + 1 < rec->command_argc) {
        ok = gw_shell_quote(a, word, sizeof word) == 0 && gw_str_append(out, cap, &used, " ") == 0 &&
             gw_str_append(out, cap, &used, word) == 0 && gw_str_append(out, cap, &used, " {bs}") == 0;
        batch_done = 1;
        i++;
        continue;
      }
    }
    ok = gw_shell_quote(a, word, sizeof word) == 0 && gw_str_append(out, cap, &used, " ") == 0 &&
         gw_str_append(out, cap, &used, word) == 0;
  }
  if (ok && !(wants_batch && batch_done))
    ok = gw_str_append(out, cap, &used, tail) == 0;
  if (ok)
    gw_strlcpy(buf, out, cap);
  free(out);
}
