/* /proc/diskstats (gw_parse_diskstats): whole disks kept, partitions,
 * loop and ram devices left out. */
#include "fuzz_util.h"
#include "sources/host.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *text = fuzz_cstring(data, size);
  struct gw_disk_counters disks[8];
  struct gw_err err = {{0}};
  /* A short array as well: the cap must hold whatever the text says. */
  for (int max = 0; max <= 8; max += 3) {
    int n = gw_parse_diskstats(text, max ? disks : NULL, max, &err);
    FUZZ_CHECK(n >= 0 && n <= max);
    FUZZ_CHECK(fuzz_terminated(err.msg, sizeof err.msg));
    for (int i = 0; i < n; i++) {
      FUZZ_CHECK(fuzz_terminated(disks[i].name, sizeof disks[i].name));
      FUZZ_CHECK(disks[i].name[0] != '\0');
      FUZZ_CHECK(strncmp(disks[i].name, "loop", 4) != 0);
    }
  }
  free(text);
  return 0;
}
