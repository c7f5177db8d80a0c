/* The environment CTest gives the unit tests (GW_FIXTURES, GW_FAKE_NVML,
 * GW_SOURCE_DIR, ...: tests/CMakeLists.txt). Header-only; include after
 * <cmocka.h>. */
#ifndef GW_FIXTURE_ENV_H
#define GW_FIXTURE_ENV_H

#include <stdlib.h>

/* The variable's value; the test is skipped when it is unset (a test program
 * run by hand, outside CTest). */
static inline const char *fixture_env_or_skip(const char *name) {
  const char *value = getenv(name);
  if (!value)
    skip();
  return value;
}

#endif
