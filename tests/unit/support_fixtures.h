/* The tracked fixtures (tests/fixtures, unpacked at configure) that CTest
 * names in GW_FIXTURES. Header-only; include after <cmocka.h>. */
#ifndef GW_SUPPORT_FIXTURES_H
#define GW_SUPPORT_FIXTURES_H

#include <stdio.h>
#include <stdlib.h>

/* The path of a fixture, rel below GW_FIXTURES; skips the test where it is
 * not set (the program run outside CTest). */
static inline void support_fixture_path(char *out, size_t cap, const char *rel) {
  const char *fixtures = getenv("GW_FIXTURES");
  if (!fixtures)
    skip();
  snprintf(out, cap, "%s/%s", fixtures, rel);
}

#endif
