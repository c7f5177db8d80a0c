/* Tests of the kernel-log source: record and Xid line parsers on every
 * fixture line, polling fixture trees and the real /dev/kmsg, the Xid table. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka needs the three headers above first */
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "sources/kmsg.h"
#include "support_test_main.h"

#define MAX_EVENTS 64

struct collected {
  int n;
  struct gw_event ev[MAX_EVENTS];
};

static void collect_event(void *ctx, const struct gw_event *ev) {
  struct collected *c = ctx;
  assert_true(c->n < MAX_EVENTS);
  c->ev[c->n++] = *ev;
}

/* Polls k once into got (emptied first); the events delivered are the
 * events the poll counts. Returns the poll's result. */
static int poll_into(struct gw_kmsg *k, struct collected *got) {
  memset(got, 0, sizeof *got);
  struct gw_event_sink sink = {collect_event, got};
  int n = gw_kmsg_poll(k, &sink);
  if (n >= 0)
    assert_int_equal(n, got->n);
  return n;
}

/* The kernel log under root, opened from boot or (from_boot 0) from now. */
static struct gw_kmsg *open_root(const char *root, int from_boot) {
  struct gw_kmsg *k = NULL;
  struct gw_err err = {{0}};
  if (gw_kmsg_open(&k, root, from_boot, &err) != GW_OK)
    fail_msg("%s: %s", root, err.msg);
  return k;
}

static const char *fixture_root(const char *name, char *buf, size_t cap) {
  const char *fixtures = getenv("GW_FIXTURES");
  assert_non_null(fixtures);
  int n = snprintf(buf, cap, "%s/kmsg/%s", fixtures, name);
  assert_true(n > 0 && (size_t)n < cap);
  return buf;
}

/* The fixture tree's log, read from boot. */
static struct gw_kmsg *open_fixture(const char *name) {
  char root[4096];
  return open_root(fixture_root(name, root, sizeof root), 1);
}

/* ---------- record parser ---------- */

/* ANY: a field the case does not check. */
#define ANY (-99)

static void test_records(void **state) {
  (void)state;
  static const struct {
    const char *raw;
    size_t len; /* 0: the whole text */
    int priority;
    int64_t seq, t_mono_us;
    const char *message;
  } cases[] = {
      {"6,1234,966503025,-;NVRM: Xid (PCI:0000:10:1c): 63, pid=1896\n SUBSYSTEM=pci\n DEVICE=+pci:0000:10:1c.0\n", 0, 6,
       1234, 966503025, "NVRM: Xid (PCI:0000:10:1c): 63, pid=1896"},
      /* 30 = facility 3 (daemon) << 3 | priority 6; the kernel may append fields after the flags. */
      {"30,7,12,c,caller=T1;hello", 0, 6, 7, 12, "hello"},
      /* Printable ASCII and whole UTF-8 characters are decoded; control bytes and
       * a broken UTF-8 lead byte stay escaped. */
      {"4,1,2,-;a\\x5cb tr\\xc3\\xa4in bell\\x07 cut\\xc3 end\\x4", 0, ANY, ANY, ANY,
       "a\\b tr\xc3\xa4in bell\\x07 cut\\xc3 end\\x4"},
      /* A record with no newline inside len is cut at len, not read past it. */
      {"6,1,2,-;abcdefXYZ", sizeof "6,1,2,-;abcdef" - 1, ANY, ANY, ANY, "abcdef"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    char raw[256];
    gw_strlcpy(raw, cases[i].raw, sizeof raw);
    struct gw_kmsg_record rec;
    struct gw_err err = {{0}};
    assert_int_equal(gw_kmsg_parse_record(raw, cases[i].len ? cases[i].len : strlen(raw), &rec, &err), 0);
    if (cases[i].priority != ANY)
      assert_int_equal(rec.priority, cases[i].priority);
    if (cases[i].seq != ANY)
      assert_int_equal(rec.seq, cases[i].seq);
    if (cases[i].t_mono_us != ANY)
      assert_int_equal(rec.t_mono_us, cases[i].t_mono_us);
    assert_string_equal(rec.message, cases[i].message);
  }
}

static void expect_bad_record(const char *text, const char *expected_in_message) {
  char raw[256];
  size_t len = strlen(text);
  assert_true(len < sizeof raw);
  memcpy(raw, text, len + 1);
  struct gw_kmsg_record rec;
  struct gw_err err = {{0}};
  assert_int_equal(gw_kmsg_parse_record(raw, len, &rec, &err), -1);
  if (!strstr(err.msg, expected_in_message))
    fail_msg("for '%s' expected '%s' in the error, got '%s'", text, expected_in_message, err.msg);
}

static void test_record_malformed(void **state) {
  (void)state;
  expect_bad_record("no separator at all", "no ';'");
  expect_bad_record("abc,1,2,-;msg", "priority field is 'abc'");
  expect_bad_record("6,x1,2,-;msg", "sequence number field is 'x1'");
  expect_bad_record("6,1,+2,-;msg", "timestamp (us) field is '+2'");
  expect_bad_record("6,1, 2,-;msg", "timestamp (us) field");
  expect_bad_record("6,77;msg", "header has 2 fields");
  expect_bad_record("6;msg", "header has 1 field,");
  expect_bad_record(";msg", "header has 1 field,");
  expect_bad_record("", "empty");
  expect_bad_record("\n 6,1,2,-;msg", "empty");
  expect_bad_record("6,1,99999999999999999999999,-;m", "timestamp (us) field");
  expect_bad_record("6,1,18446744073709551,-;m", "out of range");

  struct gw_kmsg_record rec;
  struct gw_err err = {{0}};
  assert_int_equal(gw_kmsg_parse_record(NULL, 0, &rec, &err), -1);
}

/* ---------- Xid line parser ---------- */

static void test_xid_forms(void **state) {
  (void)state;
  /* every line is an Xid; ANY and NULL: not checked */
  static const struct {
    const char *line;
    int xid;
    const char *pci;
    int pid;
    const char *name, *detail;
  } cases[] = {
      {"NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, name=python3, Row Remapper: New row marked for remapping, reset gpu "
       "to activate.",
       63, "0000:10:1c", 1896, "python3", "Row Remapper: New row marked for remapping, reset gpu to activate."},
      /* A line with a pid but no process name, as the driver writes some. */
      {"NVRM: Xid (PCI:0000:10:1c): 63, pid=1896, Row Remapper: x", ANY, NULL, 1896, "", "Row Remapper: x"},
      {"NVRM: Xid (PCI:0000:3b:00 GPU-I:02 GPU-CI:01): 13, pid=7, name=a b, E", 13, "0000:3b:00", ANY, "a b", "E"},
      {"NVRM: Xid (0000:01:00): 31, Ch 0000000b, intr 10000000. MMU Fault: F", 31, "0000:01:00", 0, NULL,
       "Ch 0000000b, intr 10000000. MMU Fault: F"},
      {"NVRM: Xid (PCI:0000:10:1c): 79, pid='<unknown>', name=<unknown>, GPU has fallen off the bus.", ANY, NULL, 0, "",
       "GPU has fallen off the bus."},
      /* Code alone, nothing after it. */
      {"NVRM: Xid (PCI:0000:10:1c): 62", 62, NULL, ANY, NULL, ""},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    struct gw_xid x;
    print_message("%s\n", cases[i].line);
    assert_int_equal(gw_parse_xid_line(cases[i].line, &x), 1);
    if (cases[i].xid != ANY)
      assert_int_equal(x.xid, cases[i].xid);
    if (cases[i].pci)
      assert_string_equal(x.pci, cases[i].pci);
    if (cases[i].pid != ANY)
      assert_int_equal(x.pid, cases[i].pid);
    if (cases[i].name)
      assert_string_equal(x.name, cases[i].name);
    assert_string_equal(x.detail, cases[i].detail);
  }
}

static void test_xid_not_xid(void **state) {
  (void)state;
  struct gw_xid x;
  assert_int_equal(gw_parse_xid_line("NVRM: GPU 0000:10:1c.0: GPU has fallen off the bus.", &x), 0);
  assert_int_equal(x.xid, -1);
  assert_string_equal(x.detail, "GPU 0000:10:1c.0: GPU has fallen off the bus.");
  /* Broken Xid headers are still driver lines, never half-filled Xids. */
  static const char *const broken[] = {
      "NVRM: Xid (PCI:0000:10:1c): garbage here",
      "NVRM: Xid (PCI:0000:10:1c",
      "NVRM: Xid (PCI:0000:10:1c) 13, x",
      "NVRM: Xid (PCI:0000:10:1c): 99999999999, pid=1",
      "NVRM: Xid",
      "NVRM: Xid (PCI:0000:10:1c): 13x, pid=1",
  };
  for (size_t i = 0; i < sizeof broken / sizeof broken[0]; i++) {
    assert_int_equal(gw_parse_xid_line(broken[i], &x), 0);
    assert_int_equal(x.xid, -1);
    assert_string_equal(x.pci, "");
    assert_int_equal(x.pid, 0);
  }
  assert_int_equal(gw_parse_xid_line("NVRM:", &x), 0);
  assert_string_equal(x.detail, "");
  assert_int_equal(gw_parse_xid_line("nvidia-nvlink: Nvlink Core is being initialized", &x), -1);
  assert_int_equal(gw_parse_xid_line("", &x), -1);
  assert_int_equal(gw_parse_xid_line(NULL, &x), -1);
}

/* ---------- every line of the mixed fixture ---------- */

struct expected_line {
  int priority;
  uint64_t seq, t_mono_us;
  int kind; /* gw_parse_xid_line result */
  int xid;
  const char *pci;
  int pid;
  const char *name;
  const char *detail;
};

static const struct expected_line mixed_lines[] = {
    {5, 0, 0, -1, -1, "", 0, "", ""},
    {6, 1, 2500000, 0, -1, "", 0, "", "loading NVIDIA UNIX x86_64 Kernel Module  580.159.04"},
    {6, 1234, 966503025, 1, 63, "0000:10:1c", 1896, "python3",
     "Row Remapper: New row marked for remapping, reset gpu to activate."},
    {4, 1240, 970000000, 1, 94, "0000:3b:00", 2211, "pt_main_thread", "Contained: SM (0x1). RST: No, D-RST: No"},
    {4, 1241, 970000500, 1, 13, "0000:3b:00", 2212, "python3", "Graphics Exception: ESR 0x504648=0x80000001"},
    {4, 1250, 1000000000, 1, 31, "0000:01:00", 0, "",
     "Ch 0000000b, intr 10000000. MMU Fault: ENGINE GRAPHICS faulted @ "
     "0x7f4a_7e000000"},
    {4, 1251, 1000100000, 1, 31, "0000:08:00", 0, "",
     "Ch 0000003b, intr 10000000. MMU Fault: ENGINE CE0 faulted @ "
     "0x1_00000000"},
    {3, 1260, 1100000000, 1, 79, "0000:10:1c", 0, "", "GPU has fallen off the bus."},
    {3, 1261, 1100000100, 0, -1, "", 0, "", "GPU 0000:10:1c.0: GPU has fallen off the bus."},
    {4, 1270, 1200000000, 1, 13, "0000:10:1c", 3001, "tr\xc3\xa4in", "Warp Exception\\x07 at \\x\\xc3 end"},
    {4, 1280, 1300000000, 1, 137, "0000:10:1c", 1896, "python3", "NVLink: fault at 0x0 on peer"},
    {6, 1290, 1400000000, -1, -1, "", 0, "", ""},
    {4, 1300, 1500000000, 1, 154, "0000:10:1c", 0, "",
     "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)"},
    {4, 1310, 1600000000, 0, -1, "", 0, "", "Xid (PCI:0000:10:1c): garbage here"},
};

static void test_every_fixture_line(void **state) {
  (void)state;
  char root[4096];
  static char text[65536];
  int truncated = 0;
  long len = gw_read_file_at(fixture_root("xid_mixed", root, sizeof root), "/dev/kmsg", text, sizeof text, &truncated);
  assert_true(len > 0);
  assert_false(truncated);
  size_t checked = 0;
  char *line = text;
  while (*line) {
    char *newline = strchr(line, '\n');
    assert_non_null(newline);
    size_t line_len = (size_t)(newline - line);
    char *next = newline + 1;
    if (line[0] != ' ') { /* continuation lines belong to the record before */
      assert_true(checked < sizeof mixed_lines / sizeof mixed_lines[0]);
      const struct expected_line *want = &mixed_lines[checked];
      struct gw_kmsg_record rec;
      struct gw_err err = {{0}};
      assert_int_equal(gw_kmsg_parse_record(line, line_len, &rec, &err), 0);
      assert_int_equal(rec.priority, want->priority);
      assert_int_equal(rec.seq, want->seq);
      assert_int_equal(rec.t_mono_us, want->t_mono_us);
      struct gw_xid x;
      assert_int_equal(gw_parse_xid_line(rec.message, &x), want->kind);
      assert_int_equal(x.xid, want->xid);
      assert_string_equal(x.pci, want->pci);
      assert_int_equal(x.pid, want->pid);
      assert_string_equal(x.name, want->name);
      if (want->kind >= 0)
        assert_string_equal(x.detail, want->detail);
      checked++;
    }
    line = next;
  }
  assert_int_equal(checked, sizeof mixed_lines / sizeof mixed_lines[0]);
}

/* ---------- polling fixture trees ---------- */

static void test_poll_mixed_fixture(void **state) {
  (void)state;
  int64_t offset_before = gw_monotonic_to_realtime_offset_ns();
  struct gw_kmsg *k = open_fixture("xid_mixed");
  int64_t offset_after = gw_monotonic_to_realtime_offset_ns();
  static struct collected got;
  assert_int_equal(poll_into(k, &got), 12);

  static const struct {
    const char *kind;
    int64_t code;
    int pid;
    uint64_t t_mono_us;
    const char *message_start;
    const char *message_part; /* the table's words, the process, the MIG instance */
  } want[] = {
      {"nvrm", 0, 0, 2500000, "loading NVIDIA UNIX", "580.159.04"},
      {"xid", 63, 1896, 966503025, "PCI 0000:10:1c: Row Remapper: New row marked",
       "[process python3] \xE2\x80\x94 Xid 63 INFOROM_DRAM_RETIREMENT_EVENT: "
       "the GPU recorded a memory row remap"},
      {"xid", 94, 2211, 970000000, "PCI 0000:3b:00: Contained: SM (0x1)",
       "[process pt_main_thread, MIG GPU instance 1] \xE2\x80\x94 Xid 94 "
       "ROBUST_CHANNEL_CONTAINED_ERROR"},
      {"xid", 13, 2212, 970000500, "PCI 0000:3b:00: Graphics Exception",
       "[process python3, MIG GPU instance 2 compute instance 0] \xE2\x80\x94 "
       "Xid 13 ROBUST_CHANNEL_GR_EXCEPTION"},
      {"xid", 31, 0, 1000000000, "PCI 0000:01:00: Ch 0000000b", "Xid 31 ROBUST_CHANNEL_FIFO_ERROR_MMU_ERR_FLT"},
      {"xid", 31, 0, 1000100000, "PCI 0000:08:00: Ch 0000003b", "GPU memory page fault"},
      {"xid", 79, 0, 1100000000, "PCI 0000:10:1c: GPU has fallen off the bus.",
       "Xid 79 ROBUST_CHANNEL_GPU_HAS_FALLEN_OFF_THE_BUS: the GPU no longer "
       "answers"},
      {"nvrm", 0, 0, 1100000100, "GPU 0000:10:1c.0: GPU has fallen off the bus.", "bus"},
      {"xid", 13, 3001, 1200000000, "PCI 0000:10:1c: Warp Exception\\x07 at \\x\\xc3 end", "process tr\xc3\xa4in"},
      {"xid", 137, 1896, 1300000000, "PCI 0000:10:1c: NVLink: fault", "Xid 137 is not in gpuwhy's table"},
      {"xid", 154, 0, 1500000000, "PCI 0000:10:1c: GPU recovery action changed", "GPU_RECOVERY_ACTION_CHANGED"},
      {"nvrm", 0, 0, 1600000000, "Xid (PCI:0000:10:1c): garbage here", "garbage"},
  };
  for (int i = 0; i < got.n; i++) {
    const struct gw_event *ev = &got.ev[i];
    assert_string_equal(ev->kind, want[i].kind);
    assert_int_equal(ev->code, want[i].code);
    assert_int_equal(ev->pid, want[i].pid);
    assert_int_equal(ev->gpu, -1);
    if (strncmp(ev->message, want[i].message_start, strlen(want[i].message_start)) != 0)
      fail_msg("event %d: message '%s' does not start with '%s'", i, ev->message, want[i].message_start);
    if (!strstr(ev->message, want[i].message_part))
      fail_msg("event %d: message '%s' lacks '%s'", i, ev->message, want[i].message_part);
    /* Monotonic us to realtime ns with the offset taken at open. */
    int64_t offset = ev->t_ns - (int64_t)want[i].t_mono_us * 1000;
    assert_true(offset >= offset_before - 1000000 && offset <= offset_after + 1000000);
    if (i > 0)
      assert_int_equal(offset, got.ev[0].t_ns - (int64_t)want[0].t_mono_us * 1000);
  }
  /* Drained: nothing more until the file grows. */
  assert_int_equal(poll_into(k, &got), 0);
  gw_kmsg_close(k);
}

static void test_poll_malformed_fixture(void **state) {
  (void)state;
  struct gw_kmsg *k = open_fixture("malformed");
  static struct collected got;
  assert_int_equal(poll_into(k, &got), 6);
  assert_string_equal(got.ev[0].kind, "xid");
  assert_int_equal(got.ev[0].code, 48);
  assert_int_equal(got.ev[0].pid, 4242);
  assert_non_null(strstr(got.ev[0].message, "ROBUST_CHANNEL_GPU_ECC_DBE"));
  assert_string_equal(got.ev[1].kind, "nvrm");
  assert_string_equal(got.ev[1].message, "");
  assert_string_equal(got.ev[2].kind, "nvrm");
  assert_string_equal(got.ev[2].message, "Xid (PCI:0000:10:1c");
  assert_string_equal(got.ev[3].kind, "nvrm");
  assert_int_equal(got.ev[3].code, 0);
  /* One note per kind of trouble, naming the file, the line and the reason. */
  assert_string_equal(got.ev[4].kind, "note");
  assert_non_null(strstr(got.ev[4].message, "skipped 1 record longer than 8192 bytes"));
  assert_string_equal(got.ev[5].kind, "note");
  assert_non_null(strstr(got.ev[5].message, "skipped 8 malformed records"));
  assert_non_null(strstr(got.ev[5].message, "malformed/dev/kmsg line 2: kmsg record: no ';'"));
  gw_kmsg_close(k);
}

static void test_poll_empty_fixture(void **state) {
  (void)state;
  struct gw_kmsg *k = open_fixture("empty");
  static struct collected got;
  assert_int_equal(poll_into(k, &got), 0);
  /* A NULL sink is allowed: events are counted, not delivered. */
  gw_kmsg_close(k);
  k = open_fixture("xid_mixed");
  assert_int_equal(gw_kmsg_poll(k, NULL), 12);
  gw_kmsg_close(k);
}

/* ---------- following a growing log ---------- */

struct temp_tree {
  char root[256];
  char file[300];
};

static void make_temp_tree(struct temp_tree *t) {
  gw_strlcpy(t->root, "/tmp/gw_kmsg_test_XXXXXX", sizeof t->root);
  assert_non_null(mkdtemp(t->root));
  char dev[300];
  snprintf(dev, sizeof dev, "%s/dev", t->root);
  assert_int_equal(mkdir(dev, 0700), 0);
  snprintf(t->file, sizeof t->file, "%s/dev/kmsg", t->root);
}

static void remove_temp_tree(struct temp_tree *t) {
  char dev[300];
  snprintf(dev, sizeof dev, "%s/dev", t->root);
  unlink(t->file);
  rmdir(dev);
  rmdir(t->root);
}

static void append_text(const char *path, const char *text) {
  FILE *f = fopen(path, "a");
  assert_non_null(f);
  assert_int_equal(fputs(text, f) >= 0, 1);
  assert_int_equal(fclose(f), 0);
}

static void test_follow_appended_records(void **state) {
  (void)state;
  struct temp_tree t;
  make_temp_tree(&t);
  append_text(t.file, "4,1,100,-;NVRM: Xid (PCI:0000:10:1c): 13, pid=1, name=old, history\n");
  /* Not from boot: the record already there is history and is skipped. */
  struct gw_kmsg *k = open_root(t.root, 0);
  static struct collected got;
  assert_int_equal(poll_into(k, &got), 0);

  /* A record written in two pieces is emitted once, when its line is complete.
   */
  append_text(t.file, "4,2,200,-;NVRM: Xid (PCI:0000:10:1c): 48, pid=77");
  assert_int_equal(poll_into(k, &got), 0);
  append_text(t.file, ", name=python3, DBE\n SUBSYSTEM=pci\n");
  assert_int_equal(poll_into(k, &got), 1);
  assert_string_equal(got.ev[0].kind, "xid");
  assert_int_equal(got.ev[0].code, 48);
  assert_int_equal(got.ev[0].pid, 77);
  assert_non_null(strstr(got.ev[0].message, "PCI 0000:10:1c: DBE [process python3]"));
  gw_kmsg_close(k);

  /* From boot: both records. */
  k = open_root(t.root, 1);
  assert_int_equal(poll_into(k, &got), 2);
  assert_int_equal(got.ev[0].code, 13);
  assert_int_equal(got.ev[1].code, 48);
  gw_kmsg_close(k);
  remove_temp_tree(&t);
}

/* A line far past the cap arriving over several reads is skipped whole, and
 * the record after it still counts. */
static void test_huge_line(void **state) {
  (void)state;
  struct temp_tree t;
  make_temp_tree(&t);
  FILE *f = fopen(t.file, "w");
  assert_non_null(f);
  assert_true(fputs("6,1,1,-;NVRM: Xid (PCI:0000:10:1c): 13, pid=9, name=x, ", f) >= 0);
  for (int i = 0; i < 300000; i++)
    assert_true(fputc('B', f) != EOF);
  assert_true(fputs("\n6,2,2,-;NVRM: Xid (PCI:0000:10:1c): 79, "
                    "pid='<unknown>', GPU has fallen off the bus.\n",
                    f) >= 0);
  assert_int_equal(fclose(f), 0);

  struct gw_kmsg *k = open_root(t.root, 1);
  static struct collected got;
  assert_int_equal(poll_into(k, &got), 2);
  assert_string_equal(got.ev[0].kind, "xid");
  assert_int_equal(got.ev[0].code, 79);
  assert_string_equal(got.ev[1].kind, "note");
  assert_non_null(strstr(got.ev[1].message, "longer than 8192 bytes"));
  gw_kmsg_close(k);
  remove_temp_tree(&t);
}

/* ---------- open errors ---------- */

static void test_open_errors(void **state) {
  (void)state;
  struct gw_kmsg *k = (struct gw_kmsg *)&k;
  struct gw_err err = {{0}};
  assert_int_equal(gw_kmsg_open(&k, "/nonexistent/gpuwhy-root", 1, &err), GW_ENOTSUP);
  assert_null(k);
  assert_non_null(strstr(err.msg, "/nonexistent/gpuwhy-root/dev/kmsg"));

  struct temp_tree t;
  make_temp_tree(&t);
  assert_int_equal(mkdir(t.file, 0700), 0); /* dev/kmsg is a directory */
  assert_int_equal(gw_kmsg_open(&k, t.root, 1, &err), GW_EINPUT);
  assert_non_null(strstr(err.msg, "is a directory"));
  assert_int_equal(rmdir(t.file), 0);

  /* Root bypasses file modes, so the permission case needs a normal user. */
  if (geteuid() != 0) {
    append_text(t.file, "");
    assert_int_equal(chmod(t.file, 0), 0);
    assert_int_equal(gw_kmsg_open(&k, t.root, 1, &err), GW_ENOTSUP);
    assert_non_null(strstr(err.msg, "permission denied; kernel.dmesg_restrict?"));
  }
  remove_temp_tree(&t);
  assert_int_equal(gw_kmsg_poll(NULL, NULL), -1);
  gw_kmsg_close(NULL);
}

/* ---------- the real kernel log ---------- */

static void test_live_kmsg(void **state) {
  (void)state;
  struct gw_kmsg *k = NULL;
  struct gw_err err = {{0}};
  gw_status st = gw_kmsg_open(&k, "", 1, &err);
  if (st != GW_OK) {
    assert_int_equal(st, GW_ENOTSUP);
    print_message("skipping: %s\n", err.msg);
    skip();
  }
  static struct collected got;
  /* Whatever this machine's log holds; on a host without NVIDIA GPUs only
   * notes can appear, and the poll must not fail or block. */
  assert_true(poll_into(k, &got) >= 0);
  for (int i = 0; i < got.n; i++) {
    const char *kind = got.ev[i].kind;
    assert_true(strcmp(kind, "xid") == 0 || strcmp(kind, "nvrm") == 0 || strcmp(kind, "note") == 0);
  }
  assert_true(poll_into(k, &got) >= 0);
  gw_kmsg_close(k);

  /* Following from now: history skipped. */
  k = open_root("", 0);
  assert_true(poll_into(k, &got) >= 0);
  gw_kmsg_close(k);
}

/* ---------- the Xid table ---------- */

static void test_xid_table(void **state) {
  (void)state;
  static const int codes[] = {8,  13, 31, 32, 43,  44,  45,  46,  48,  61,  62,  63,  64,  74,
                              79, 92, 94, 95, 109, 119, 120, 121, 122, 123, 124, 125, 140, 154};
  for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
    const struct gw_xid_info *info = gw_xid_lookup(codes[i]);
    if (!info)
      fail_msg("Xid %d is missing from the table", codes[i]);
    assert_int_equal(info->xid, codes[i]);
    assert_true(strlen(info->mnemonic) > 3);
    assert_true(strlen(info->meaning) > 20);
    assert_true(strlen(info->action) > 10);
    assert_true(info->severity >= 0 && info->severity <= 2);
  }
  assert_string_equal(gw_xid_lookup(13)->mnemonic, "ROBUST_CHANNEL_GR_EXCEPTION");
  assert_int_equal(gw_xid_lookup(13)->severity, 0);
  assert_int_equal(gw_xid_lookup(63)->severity, 1);
  assert_int_equal(gw_xid_lookup(79)->severity, 2);
  assert_int_equal(gw_xid_lookup(95)->severity, 2);
  assert_string_equal(gw_xid_lookup(119)->mnemonic, "GSP_RPC_TIMEOUT");
  assert_string_equal(gw_xid_lookup(125)->mnemonic, "INFOROM_FS_ERROR");
  static const int unknown[] = {-1, 0, 1, 12, 126, 137, 100000};
  for (size_t i = 0; i < sizeof unknown / sizeof unknown[0]; i++)
    assert_null(gw_xid_lookup(unknown[i]));
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(test_records),
    cmocka_unit_test(test_record_malformed),
    cmocka_unit_test(test_xid_forms),
    cmocka_unit_test(test_xid_not_xid),
    cmocka_unit_test(test_every_fixture_line),
    cmocka_unit_test(test_poll_mixed_fixture),
    cmocka_unit_test(test_poll_malformed_fixture),
    cmocka_unit_test(test_poll_empty_fixture),
    cmocka_unit_test(test_follow_appended_records),
    cmocka_unit_test(test_huge_line),
    cmocka_unit_test(test_open_errors),
    cmocka_unit_test(test_live_kmsg),
    cmocka_unit_test(test_xid_table),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
