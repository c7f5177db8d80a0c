/* A recording read the way `gpuwhy report` reads one, but from bytes in
 * memory: gw_store_open_buffer (the same header, version and quick_check
 * checks as a file), the loader, the diagnosis and the JSON report. No file,
 * no fsync: what the fuzzer spends its time on is the parsing and the
 * analysis. The readers that take a path (HTML, Perfetto, the compare
 * summary, a read-write open) stay in fuzz_recording.h, run on a file for a
 * share of the inputs. */
#ifndef GW_FUZZ_MEMORY_H
#define GW_FUZZ_MEMORY_H

#include <sqlite3.h>

#include "analysis/diagnosis.h"
#include "analysis/series.h"
#include "fuzz_sqlite_heap.h"
#include "fuzz_util.h"
#include "render/report_html.h"
#include "render/report_render.h"
#include "store/store.h"

/* SQLite set up for one thread doing many small opens, before its first
 * use (LLVMFuzzerInitialize): no mutexes and no memory statistics (a lock
 * around every malloc), more lookaside slots per connection, and its blocks
 * kept and reused (fuzz_sqlite_heap.h), so that parsing a schema and
 * preparing statements take fewer trips through AddressSanitizer's
 * allocator. What SQLite reads and returns is the same; the memory our code
 * gets from it stays poisoned outside what SQLite handed over, where ASan
 * watches it. */
static inline void fuzz_sqlite_setup(void) {
  if (sqlite3_config(SQLITE_CONFIG_SINGLETHREAD) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0) != SQLITE_OK ||
      sqlite3_config(SQLITE_CONFIG_LOOKASIDE, 512, 1024) != SQLITE_OK || fuzz_sqlite_heap_install() != SQLITE_OK) {
    fprintf(stderr, "fuzz: SQLite was configured too late (sqlite3_config before its first use)\n");
    abort();
  }
}

static inline FILE *fuzz_null_out(void) {
  static FILE *f;
  if (!f && !(f = fopen("/dev/null", "w")))
    abort();
  return f;
}

/* What else is rendered from a diagnosis read in memory (fuzz_read_image);
 * FUZZ_RENDER_EVERY: text, Markdown and HTML, all of them. */
enum fuzz_render {
  FUZZ_RENDER_JSON,
  FUZZ_RENDER_TEXT_MD,
  FUZZ_RENDER_HTML,
  FUZZ_NRENDERS,
  FUZZ_RENDER_EVERY = FUZZ_NRENDERS
};

/* Diagnose the recording image and render it as JSON and as render says:
 * 0 with its verdict in verdict, or 3 with the reason in msg (never empty
 * then). */
/* Diagnose the recording open in st and render it as fuzz_read_image says:
 * 0 with its verdict, or 3 with the reason in msg (never empty then). st
 * stays the caller's. */
static inline int fuzz_read_store(struct gw_store *st, enum fuzz_render render, char *verdict, size_t vcap, char *msg,
                                  size_t mcap) {
  struct gw_err err = {{0}};
  struct gw_recording *rec = NULL;
  struct gw_diagnosis *dx = NULL;
  verdict[0] = '\0';
  msg[0] = '\0';
  int rc = 3;
  if (gw_recording_load_store(st, &rec, &err) == GW_OK && gw_diagnose(rec, &dx, &err) == GW_OK) {
    gw_render_json(dx, fuzz_null_out());
    if (render == FUZZ_RENDER_TEXT_MD || render == FUZZ_RENDER_EVERY) {
      gw_render_text(dx, fuzz_null_out(), 1);
      gw_render_md(dx, fuzz_null_out());
    }
    if (render == FUZZ_RENDER_HTML || render == FUZZ_RENDER_EVERY)
      gw_render_html(rec, dx, NULL, fuzz_null_out());
    FUZZ_CHECK(dx->verdict && dx->verdict[0]);
    snprintf(verdict, vcap, "%s", dx->verdict);
    rc = 0;
  }
  if (rc != 0) {
    FUZZ_CHECK(err.msg[0] != '\0'); /* a refusal always says why */
    snprintf(msg, mcap, "%s", err.msg);
  }
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  return rc;
}

static inline int fuzz_read_image(const void *data, size_t size, enum fuzz_render render, char *verdict, size_t vcap,
                                  char *msg, size_t mcap) {
  struct gw_err err = {{0}};
  struct gw_store *st = NULL;
  if (gw_store_open_buffer(&st, data, size, "fuzz-input.db", &err) != GW_OK) {
    verdict[0] = '\0';
    FUZZ_CHECK(err.msg[0] != '\0'); /* a refusal always says why */
    snprintf(msg, mcap, "%s", err.msg);
    return 3;
  }
  FUZZ_CHECK(st != NULL);
  int rc = fuzz_read_store(st, render, verdict, vcap, msg, mcap);
  gw_store_close(st);
  return rc;
}

static inline int fuzz_diagnose_image(const void *data, size_t size, char *verdict, size_t vcap, char *msg,
                                      size_t mcap) {
  return fuzz_read_image(data, size, FUZZ_RENDER_JSON, verdict, vcap, msg, mcap);
}

#endif
