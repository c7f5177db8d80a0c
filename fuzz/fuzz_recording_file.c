/* A whole recording file, damaged the ways files get damaged, read in
 * memory through the checks and the loader `gpuwhy report` uses
 * (fuzz_memory.h), then diagnosed.
 *
 * The custom mutator applies one damage to the recording: a cut (at a page
 * boundary or anywhere), flipped bits, a numeric cell rewritten as text, a
 * dropped column or table, an extra column, another user_version; or hands
 * the bytes to libFuzzer's own mutations. It appends a trailer naming what it
 * did and the verdict of the undamaged file it started from, so the target
 * can compare:
 *   - every input gives a verdict, or a refusal with a message; never a crash;
 *   - a damaged copy whose every damage is one the loader can tell (a cut, a
 *     type change, a dropped column or table, a version no gpuwhy wrote, an
 *     extra column, which changes nothing) gives the original's verdict or is
 *     refused as damaged. Another verdict without that is a finding (abort).
 * Flipped bits and libFuzzer's byte mutations can change a number into
 * another plausible number, which no reader can tell: they turn the
 * comparison off for that input (the first promise still holds).
 *
 * Trailer (48 bytes, after the recording's bytes): "GWDMG1\0\0", the damage
 * bits (8 bytes), the original verdict (24 bytes, NUL padded), a hash of all
 * before it (8 bytes). An input without a valid trailer is read as it is. */
#include <sqlite3.h>

#include "fuzz_memory.h"
#include "fuzz_sqlite_initialize.h"

#define TRAILER_MAGIC "GWDMG1\0"
#define TRAILER_BYTES 48
#define VERDICT_BYTES 24

enum damage {
  DAMAGE_CUT = 1u << 0,
  DAMAGE_TEXT_CELL = 1u << 1,
  DAMAGE_DROP_COLUMN = 1u << 2,
  DAMAGE_DROP_TABLE = 1u << 3,
  DAMAGE_EXTRA_COLUMN = 1u << 4,
  DAMAGE_VERSION_OUT = 1u << 5, /* a user_version outside 1 .. current */
  /* the loader cannot tell these from a real run: no comparison */
  DAMAGE_VERSION_IN = 1u << 6, /* another version this build reads */
  DAMAGE_BITS = 1u << 7,
  DAMAGE_BYTES = 1u << 8, /* libFuzzer's own mutations */
};
#define DAMAGE_TELLABLE                                                                                                \
  (DAMAGE_CUT | DAMAGE_TEXT_CELL | DAMAGE_DROP_COLUMN | DAMAGE_DROP_TABLE | DAMAGE_EXTRA_COLUMN | DAMAGE_VERSION_OUT)

struct trailer {
  uint64_t damage;
  char verdict[VERDICT_BYTES];
};

/* The recording's length without the trailer, and the trailer when there is a valid one. */
static size_t split_trailer(const uint8_t *data, size_t size, struct trailer *t) {
  if (size < TRAILER_BYTES)
    return size;
  const uint8_t *tr = data + size - TRAILER_BYTES;
  if (memcmp(tr, TRAILER_MAGIC, 8) != 0)
    return size;
  uint64_t want;
  memcpy(&want, tr + 40, 8);
  if (fuzz_hash64(data, size - 8) != want)
    return size; /* changed after the trailer was written: not ours to compare */
  memcpy(&t->damage, tr + 8, 8);
  memcpy(t->verdict, tr + 16, VERDICT_BYTES);
  t->verdict[VERDICT_BYTES - 1] = '\0';
  return size - TRAILER_BYTES;
}

/* Append the trailer to the body at data[0 .. body); 0 when it does not fit. */
static size_t put_trailer(uint8_t *data, size_t body, size_t max, const struct trailer *t) {
  if (body + TRAILER_BYTES > max)
    return 0;
  uint8_t *tr = data + body;
  memcpy(tr, TRAILER_MAGIC, 8);
  memcpy(tr + 8, &t->damage, 8);
  memset(tr + 16, 0, VERDICT_BYTES);
  memcpy(tr + 16, t->verdict, strnlen(t->verdict, VERDICT_BYTES - 1));
  uint64_t h = fuzz_hash64(data, body + 40);
  memcpy(tr + 40, &h, 8);
  return body + TRAILER_BYTES;
}

/* The verdicts of undamaged inputs, by hash: each is diagnosed once, when
 * libFuzzer runs it (every input runs before it is mutated). */
#define VERDICT_CACHE 1024
static struct {
  uint64_t hash;
  char verdict[VERDICT_BYTES];
  int used;
} cache[VERDICT_CACHE];

static void remember_verdict(uint64_t h, const char *verdict) {
  unsigned slot = (unsigned)(h % VERDICT_CACHE);
  cache[slot].used = 1;
  cache[slot].hash = h;
  cache[slot].verdict[0] = '\0';
  if (strlen(verdict) < VERDICT_BYTES)
    snprintf(cache[slot].verdict, VERDICT_BYTES, "%s", verdict);
}

/* The verdict of an undamaged recording, "" when it gives none. */
static const char *original_verdict(const uint8_t *data, size_t size) {
  uint64_t h = fuzz_hash64(data, size);
  unsigned slot = (unsigned)(h % VERDICT_CACHE);
  if (!cache[slot].used || cache[slot].hash != h) {
    char verdict[64], msg[1024];
    if (fuzz_diagnose_image(data, size, verdict, sizeof verdict, msg, sizeof msg) != 0)
      verdict[0] = '\0';
    remember_verdict(h, verdict);
  }
  return cache[slot].verdict;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  struct trailer t = {0};
  size_t body = split_trailer(data, size, &t);
  char verdict[64], msg[1024];
  int rc = fuzz_diagnose_image(data, body, verdict, sizeof verdict, msg, sizeof msg);
  FUZZ_CHECK(rc == 0 || (rc == 3 && msg[0] != '\0'));
  if (getenv("GW_FUZZ_VERBOSE")) /* triage: what the input gave */
    fprintf(stderr, "verdict '%s' (original '%s', damage 0x%llx) %s\n", verdict, t.verdict,
            (unsigned long long)t.damage, msg);
  if (body == size) /* no trailer: this is an original for the mutations to come */
    remember_verdict(fuzz_hash64(data, size), rc == 0 ? verdict : "");
  if (rc != 0 || !t.damage || !t.verdict[0] || (t.damage & ~(uint64_t)DAMAGE_TELLABLE))
    return 0;
  if (strcmp(verdict, t.verdict) != 0) {
    fprintf(stderr,
            "fuzz_recording_file: damage 0x%llx (cut 1, text cell 2, dropped column 4, dropped table 8, extra "
            "column 16, version 32) turned the verdict %s into %s with no damage reported\n",
            (unsigned long long)t.damage, t.verdict, verdict);
    abort();
  }
  return 0;
}

/* ---- the mutator ---- */

static uint64_t rng_state;
static uint32_t rnd(uint32_t n) {
  rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
  return n ? (uint32_t)(rng_state >> 33) % n : 0;
}

/* A writable in-memory copy of the recording, NULL when SQLite cannot open it. */
static sqlite3 *open_copy(const uint8_t *data, size_t size) {
  sqlite3 *db = NULL;
  if (size < 100 || sqlite3_open_v2(":memory:", &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_MEMORY, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  unsigned char *image = sqlite3_malloc64(size);
  if (!image)
    abort();
  memcpy(image, data, size);
  if (image[18] == 2 && image[19] == 2) /* WAL: memdb reads it as a rollback file */
    image[18] = image[19] = 1;
  if (sqlite3_deserialize(db, "main", image, (sqlite3_int64)size, (sqlite3_int64)size,
                          SQLITE_DESERIALIZE_FREEONCLOSE | SQLITE_DESERIALIZE_RESIZEABLE) != SQLITE_OK ||
      sqlite3_exec(db, "SELECT count(*) FROM sqlite_schema", NULL, NULL, NULL) != SQLITE_OK) {
    sqlite3_close(db);
    return NULL;
  }
  return db;
}

/* A random user table's name into name; 0 when there is none. */
static int pick_table(sqlite3 *db, char *name, size_t cap) {
  sqlite3_stmt *s = NULL;
  int found = 0;
  if (sqlite3_prepare_v2(db,
                         "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
                         "ORDER BY name LIMIT 1 OFFSET ?",
                         -1, &s, NULL) != SQLITE_OK)
    return 0;
  int n = 0;
  sqlite3_stmt *c = NULL;
  if (sqlite3_prepare_v2(db, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'", -1,
                         &c, NULL) == SQLITE_OK &&
      sqlite3_step(c) == SQLITE_ROW)
    n = sqlite3_column_int(c, 0);
  sqlite3_finalize(c);
  if (n > 0) {
    sqlite3_bind_int(s, 1, (int)rnd((uint32_t)n));
    if (sqlite3_step(s) == SQLITE_ROW) {
      snprintf(name, cap, "%s", (const char *)sqlite3_column_text(s, 0));
      found = 1;
    }
  }
  sqlite3_finalize(s);
  return found;
}

/* A random column of table; numeric_only: INTEGER or REAL ones. 0 when none. */
static int pick_column(sqlite3 *db, const char *table, int numeric_only, char *name, size_t cap) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT name, type FROM pragma_table_info('%s')", table);
  sqlite3_stmt *s = NULL;
  if (sqlite3_prepare_v2(db, sql, -1, &s, NULL) != SQLITE_OK)
    return 0;
  char names[64][64];
  int n = 0;
  while (sqlite3_step(s) == SQLITE_ROW && n < 64) {
    const char *col = (const char *)sqlite3_column_text(s, 0), *type = (const char *)sqlite3_column_text(s, 1);
    if (!col || strlen(col) >= sizeof names[0])
      continue;
    if (numeric_only && !(type && (strcasestr(type, "INT") || strcasestr(type, "REAL"))))
      continue;
    snprintf(names[n++], sizeof names[0], "%s", col);
  }
  sqlite3_finalize(s);
  if (n == 0)
    return 0;
  snprintf(name, cap, "%s", names[rnd((uint32_t)n)]);
  return 1;
}

/* One damage done in SQL: returns its bit, 0 when it could not be made. */
static unsigned sql_damage(sqlite3 *db) {
  char table[64], column[64], sql[512];
  if (!pick_table(db, table, sizeof table))
    return 0;
  unsigned kind = rnd(5);
  switch (kind) {
  case 0: /* text where a number belongs, in some rows */
    if (!pick_column(db, table, 1, column, sizeof column))
      return 0;
    snprintf(sql, sizeof sql, "UPDATE \"%s\" SET \"%s\" = '%s' WHERE rowid %% %u = %u", table, column,
             rnd(2) ? "high" : "12abc", 1 + rnd(7), rnd(3));
    break;
  case 1:
    if (!pick_column(db, table, 0, column, sizeof column))
      return 0;
    snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" DROP COLUMN \"%s\"", table, column);
    break;
  case 2:
    snprintf(sql, sizeof sql, "DROP TABLE \"%s\"", table);
    break;
  case 3:
    snprintf(sql, sizeof sql, "ALTER TABLE \"%s\" ADD COLUMN fuzz_extra_%u %s", table, rnd(100),
             rnd(2) ? "INTEGER" : "TEXT DEFAULT 'x'");
    break;
  default: {
    static const int versions[] = {0, -1, 3, 999, 1, 2, 65536};
    int v = versions[rnd(sizeof versions / sizeof *versions)];
    snprintf(sql, sizeof sql, "PRAGMA user_version = %d", v);
    if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
      return 0;
    return v >= 1 && v <= GW_STORE_SCHEMA_VERSION ? DAMAGE_VERSION_IN : DAMAGE_VERSION_OUT;
  }
  }
  if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK)
    return 0;
  static const unsigned bits[] = {DAMAGE_TEXT_CELL, DAMAGE_DROP_COLUMN, DAMAGE_DROP_TABLE, DAMAGE_EXTRA_COLUMN};
  return bits[kind];
}

/* The page size from the header (a power of two 512 .. 65536), 4096 when it makes no sense. */
static size_t page_size(const uint8_t *data, size_t size) {
  if (size < 100)
    return 4096;
  size_t p = (size_t)data[16] << 8 | data[17];
  if (p == 1)
    p = 65536;
  return p >= 512 && (p & (p - 1)) == 0 ? p : 4096;
}

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max);

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max, unsigned int seed) {
  rng_state = seed ^ 0x9e3779b97f4a7c15ull;
  struct trailer t = {0};
  size_t body = split_trailer(data, size, &t);
  if (!t.damage)
    snprintf(t.verdict, sizeof t.verdict, "%s", original_verdict(data, body));
  unsigned what = rnd(8);
  if (what == 0 || body < 100) { /* libFuzzer's own mutations, no comparison */
    size_t n = LLVMFuzzerMutate(data, body, max);
    return n;
  }
  if (what == 1) { /* cut at a page boundary or anywhere */
    size_t page = page_size(data, body), npages = body / page, cut;
    if (rnd(2) && npages > 1)
      cut = page * (1 + rnd((uint32_t)(npages - 1))); /* whole pages, at least one gone */
    else
      cut = rnd((uint32_t)body);
    t.damage |= DAMAGE_CUT;
    size_t n = put_trailer(data, cut, max, &t);
    return n ? n : cut;
  }
  if (what == 2) { /* a few flipped bits past the 100-byte header */
    for (unsigned i = 0, n = 1 + rnd(8); i < n; i++)
      data[100 + rnd((uint32_t)(body - 100))] ^= (uint8_t)(1u << rnd(8));
    t.damage |= DAMAGE_BITS;
    size_t n = put_trailer(data, body, max, &t);
    return n ? n : body;
  }
  sqlite3 *db = open_copy(data, body);
  if (!db)
    return LLVMFuzzerMutate(data, body, max);
  unsigned bit = sql_damage(db);
  sqlite3_int64 out_size = 0;
  unsigned char *out = bit ? sqlite3_serialize(db, "main", &out_size, 0) : NULL;
  sqlite3_close(db);
  if (!out || (size_t)out_size + TRAILER_BYTES > max) {
    sqlite3_free(out);
    return LLVMFuzzerMutate(data, body, max);
  }
  memcpy(data, out, (size_t)out_size);
  sqlite3_free(out);
  t.damage |= bit;
  return put_trailer(data, (size_t)out_size, max, &t);
}
