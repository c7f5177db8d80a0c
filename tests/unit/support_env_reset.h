/* Tests that drive the fakes through environment knobs start each test from
 * the fakes' defaults: every variable of the given name prefixes unset. */
#ifndef GW_SUPPORT_ENV_RESET_H
#define GW_SUPPORT_ENV_RESET_H

#include <stdlib.h>
#include <string.h>

extern char **environ;

/* Unsets each variable whose name starts with one of prefixes (NULL-ended).
 * The names are gathered first: unsetenv changes environ under the loop. */
static inline void support_unset_env_prefixed(const char *const *prefixes) {
  char names[64][64];
  int n = 0;
  for (char **e = environ; *e && n < 64; e++) {
    const char *eq = strchr(*e, '=');
    if (!eq || (size_t)(eq - *e) >= sizeof names[0])
      continue;
    for (const char *const *p = prefixes; *p; p++)
      if (strncmp(*e, *p, strlen(*p)) == 0) {
        memcpy(names[n], *e, (size_t)(eq - *e));
        names[n++][eq - *e] = '\0';
        break;
      }
  }
  for (int i = 0; i < n; i++)
    unsetenv(names[i]);
}

#endif
