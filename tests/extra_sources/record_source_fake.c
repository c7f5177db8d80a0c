/* An eighth source of the recorder, compiled only into test_extra_sources:
 * it counts the recorder's ticks, sends an event "fake_source" once a second
 * and writes the count as the meta fake_source_ticks when the recording
 * stops. Its row is all the recorder needs to know of it. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/sample.h"
#include "core/util.h"
#include "record/record_source.h"
#include "store/store.h"

struct fake_source {
  long ticks;
};

static int fake_open(struct gw_source_ctx *c, void **state, char *msg, unsigned cap) {
  (void)c, (void)msg, (void)cap;
  *state = gw_xcalloc(1, sizeof(struct fake_source));
  return 0;
}

static void fake_tick(struct gw_source_ctx *c, void *state, const struct gw_source_tick *t) {
  struct fake_source *f = state;
  f->ticks++;
  if (!t->second_due)
    return;
  struct gw_event ev = {.t_ns = t->t_ns, .kind = "fake_source", .gpu = -1, .code = f->ticks};
  snprintf(ev.message, sizeof ev.message, "fake source at tick %ld", f->ticks);
  gw_emit(c->sink, &ev);
}

static void fake_stop(struct gw_source_ctx *c, void *state, int64_t ended_ns) {
  (void)ended_ns;
  char text[32];
  snprintf(text, sizeof text, "%ld", ((struct fake_source *)state)->ticks);
  if (gw_store_put_meta(c->store, "fake_source_ticks", text) != GW_OK)
    fprintf(stderr, "fake source: the meta row was not written\n");
}

static void fake_close(struct gw_source_ctx *c, void *state) {
  (void)c;
  free(state);
}

const struct gw_record_source gw_record_source_fake = {
    .name = "fake",
    .needs = GW_SOURCE_NEEDS_STORE,
    .opens = GW_SOURCE_OPENS_BEFORE_COMMAND,
    .phase = GW_SOURCE_PHASE_HOST,
    .open = fake_open,
    .tick = fake_tick,
    .stop = fake_stop,
    .close = fake_close,
};
