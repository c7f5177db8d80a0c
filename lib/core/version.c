#include <gpuwhy/gpuwhy.h>

const char *gw_version(void) {
  return GW_VERSION;
}
