/* The table of the recorder's sources (record/record_source_list.h). */
#include "record/record_source.h"

#define GW_RECORD_SOURCE(name) extern const struct gw_record_source gw_record_source_##name;
#include "record/record_source_list.h"
#undef GW_RECORD_SOURCE

static const struct gw_record_source *const sources[] = {
#define GW_RECORD_SOURCE(name) &gw_record_source_##name,
#include "record/record_source_list.h"
#undef GW_RECORD_SOURCE
};

const struct gw_record_source *const *gw_record_sources(size_t *n) {
  *n = sizeof sources / sizeof sources[0];
  return sources;
}
