/* gpuwhy import of Kineto / Chrome trace JSON: exact times and fields in the
 * tracer's tables, gzip, both time conventions, directories of ranks, and
 * clear errors (file, byte offset) for bad input. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include <gpuwhy/gpuwhy.h>
#include <gpuwhy/import.h>
#include <sqlite3.h>

#include "core/cuda_calls.h"
#include "import/import_kineto.h"

#define BASE_NS 1790857026000000000LL

static char out_path[256], scratch[256];

#include "import_test_util.h"
#include "fixture_import.h"
#include "support_test_main.h"

static int setup(void **state) {
  (void)state;
  fixture_import_paths("kineto", ".d", scratch, sizeof scratch);
  mkdir(scratch, 0700);
  return 0;
}

static void remove_tree(const char *dir) {
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  assert_int_equal(system(cmd), 0);
}

static int teardown(void **state) {
  (void)state;
  remove_db(out_path);
  remove_tree(scratch);
  return 0;
}

static void write_file(const char *path, const char *text) {
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs(text, f);
  fclose(f);
}

/* The path of a file named name in the scratch directory, holding json. */
static const char *scratch_file(const char *name, const char *json) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", scratch, name);
  write_file(path, json);
  return path;
}

static int import_text(const char *name, const char *json, char *err, size_t errcap) {
  return gw_import(scratch_file(name, json), out_path, NULL, NULL, err, errcap);
}

static void test_small_trace_fields(void **state) {
  (void)state;
  struct gw_import_summary sum;
  fixture_import_ok(fixture("kineto_small.json"), NULL, &sum);
  assert_int_equal(sum.format, GW_IMPORT_KINETO);
  /* the counts the fixture was written with */
  fixture_expect_counts(&sum, (struct fixture_import_counts){
                                  .kernels = 4, .memcpys = 2, .memsets = 1, .syncs = 1, .api_calls = 4, .gpus = 1});
  assert_int_equal(sum.markers, 5);
  assert_int_equal(sum.steps, 2);
  assert_int_equal(sum.events, 27);
  assert_int_equal(q_int("SELECT count(*) FROM kernel"), 4);
  assert_string_equal(q_text("SELECT source FROM run"), "import:kineto");
  assert_int_equal(q_int("SELECT started_ns FROM run"), BASE_NS + 1000000);
  /* the GEMM: ts 1030.001 us and dur 12.345 us after the base, to the ns;
   * pid, device, stream, context, grid (66, 1, 1), block, registers, shared
   * memory, not NCCL */
  EXPECT_INTS("SELECT start_ns, end_ns, pid, device, stream, context, grid_x * 10000 + grid_y * 100 + grid_z,"
              " block_x, regs, shmem_bytes, nccl FROM kernel WHERE correlation = 101",
              BASE_NS + 1030001, BASE_NS + 1030001 + 12345, 4242, 0, 7, 1, 660101, 128, 122, 16384, 0);
  assert_string_equal(q_text("SELECT n.name FROM kernel k JOIN trace_name n ON "
                             "n.pid = k.pid AND n.id = k.name_id"
                             " WHERE k.correlation = 101"),
                      "ampere_sgemm_128x64_nn");
  EXPECT_INTS("SELECT nccl, stream FROM kernel WHERE correlation = 104", 1, 20);
  /* correlation ids that only the ac2g flows carried */
  EXPECT_INTS("SELECT (SELECT count(*) FROM kernel WHERE correlation = 106),"
              " (SELECT count(*) FROM api WHERE correlation = 106)",
              1, 1);
  /* a kernel without dur is still a row, without times */
  assert_int_equal(q_int("SELECT count(*) FROM kernel WHERE correlation = 107 "
                         "AND start_ns IS NULL"),
                   1);
  /* copies: CUPTI kinds (1 HtoD, 2 DtoH; 1 pageable, 2 pinned, 3 device) */
  EXPECT_INTS("SELECT copy_kind * 100 + src_kind * 10 + dst_kind, bytes FROM memcpy WHERE correlation = 102", 113,
              1048576);
  assert_int_equal(q_int("SELECT copy_kind * 100 + src_kind * 10 + dst_kind "
                         "FROM memcpy WHERE correlation = 108"),
                   232);
  EXPECT_INTS("SELECT mem_kind, bytes FROM memset", 3, 4096);
  EXPECT_INTS("SELECT sync_type, stream FROM sync", 3, 7);
  EXPECT_INTS("SELECT cbid, tid FROM api WHERE correlation = 101", 211, 4242);
  assert_string_equal(q_text("SELECT domain FROM api WHERE correlation = 104"), "driver");
  assert_int_equal(q_int("SELECT cbid FROM api WHERE correlation = 104"), 307);
  /* steps: ProfilerStep#N with its CPU span */
  assert_int_equal(q_int("SELECT count(*) FROM step WHERE source = 'kineto'"), 2);
  EXPECT_INTS("SELECT t_start_ns, t_end_ns FROM step WHERE step = 2", BASE_NS + 1600000, BASE_NS + 2000000);
  /* markers keep their kind as the domain */
  EXPECT_INTS("SELECT sum(d.name = 'cpu_op'), sum(d.name = 'gpu_user_annotation') FROM marker m"
              " JOIN trace_name d ON d.pid = m.pid AND d.id = m.domain_name_id",
              2, 1);
  /* only the device that ran something becomes a GPU of the recording */
  assert_int_equal(q_int("SELECT count(*) FROM gpu"), 1);
  assert_string_equal(q_text("SELECT name FROM gpu WHERE gpu = 0"), "Test GPU A");
  assert_int_equal(q_int("SELECT mem_total_bytes FROM gpu WHERE gpu = 0"), 85899345920LL);
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'gpu.0.num_sms'"), "132");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.rank'"), "0");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'world_size'"), "2");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'kineto_kernel_events'"), "4");
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.ac2g_flows'"), "4");
  assert_string_equal(q_text("SELECT mode FROM trace_process"), "full");
  /* no counter samples; the whole trace is one full window */
  EXPECT_INTS("SELECT (SELECT count(*) FROM gpu_sample), (SELECT count(*) FROM trace_window WHERE mode = 'full')", 0,
              1);
}

static void test_gzip_and_absolute_times(void **state) {
  (void)state;
  fixture_import_ok(fixture("kineto_old_absolute.json.gz"), NULL, NULL);
  /* older traces: ts is already epoch microseconds; categories capitalised */
  EXPECT_INTS("SELECT start_ns, end_ns - start_ns FROM kernel", 1740461679470850125LL, 300000);
  assert_int_equal(q_int("SELECT count(*) FROM step"), 2);
  assert_int_equal(q_int("SELECT t_start_ns FROM step WHERE step = 5"), 1740461679470813250LL);
  assert_int_equal(q_int("SELECT count(*) FROM api"), 1);
  /* no cbid in its args: the call's name, cudaLaunchKernel, gives 211 */
  assert_int_equal(q_int("SELECT cbid FROM api WHERE domain = 'runtime'"), 211);
  assert_int_equal(q_int("SELECT copy_kind * 100 + src_kind * 10 + dst_kind FROM memcpy"), 231);
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.clock'"), "ts as epoch microseconds");
}

/* The real torch 2.11 trace from the H200: every kernel event is a row. */
static void test_real_trace_kernel_count(void **state) {
  (void)state;
  struct gw_import_summary sum;
  fixture_import_ok(fixture("h200_torch211_single.json.gz"), NULL, &sum);
  /* jq '[.traceEvents[] | select(.cat == "kernel")] | length' says 174, and
   * 1931 events */
  assert_int_equal(q_int("SELECT count(*) FROM kernel"), 174);
  assert_int_equal(sum.events, 1931);
  /* kernels without times, copies, calls, steps, processes that ran kernels */
  EXPECT_INTS("SELECT (SELECT count(*) FROM kernel WHERE start_ns IS NULL), (SELECT count(*) FROM memcpy),"
              " (SELECT count(*) FROM api), (SELECT count(*) FROM step), (SELECT count(DISTINCT pid) FROM kernel)",
              0, 18, 247, 6, 1);
  assert_int_equal(q_int("SELECT pid FROM kernel LIMIT 1"), 425);
  /* every kernel's launch is in the api table under the same correlation id */
  assert_int_equal(q_int("SELECT count(*) FROM kernel k WHERE NOT EXISTS"
                         " (SELECT 1 FROM api a WHERE a.correlation = k.correlation)"),
                   0);
}

static void test_directory_of_ranks(void **state) {
  (void)state;
  struct gw_import_summary sum;
  fixture_import_ok(fixture("ranks"), NULL, &sum);
  assert_int_equal(sum.files, 2);
  assert_int_equal(sum.ranks, 2);
  assert_int_equal(sum.gpus, 2);
  EXPECT_INTS("SELECT sum(pid = 4242 AND device = 0), sum(pid = 4243 AND device = 1) FROM kernel", 4, 2);
  /* one rank's steps only, so step statistics do not count each step twice */
  assert_int_equal(q_int("SELECT count(*) FROM step"), 2);
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.1.rank'"), "1");
  assert_string_equal(q_text("SELECT name FROM gpu WHERE gpu = 1"), "Test GPU B");
  assert_int_equal(q_int("SELECT count(*) FROM trace_process"), 2);
  /* the text file in the directory was left out, and said so */
  assert_non_null(strstr(sum.notes, "left out"));
}

static const char RANK_TEMPLATE[] = "{\"distributedInfo\": {\"rank\": %d, \"world_size\": 2}, "
                                    "\"baseTimeNanoseconds\": 1000000000000000000,"
                                    " \"traceEvents\": [{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": "
                                    "\"aten::mm\", \"pid\": %d, \"tid\": 1,"
                                    " \"ts\": 10.000, \"dur\": 5.000},"
                                    " {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", \"pid\": 0, "
                                    "\"tid\": 7, \"ts\": 11.000, \"dur\": 1.000,"
                                    " \"args\": {\"device\": 0, \"stream\": 7, \"correlation\": 1}}]}";

static void test_ranks_on_the_same_device_index_sit_side_by_side(void **state) {
  (void)state;
  char dir[400], path[512], text[1024], err[512] = "";
  snprintf(dir, sizeof dir, "%s/ranks", scratch);
  mkdir(dir, 0700);
  /* two nodes' rank files, each on its own device 0, and both pid 100 */
  for (int r = 0; r < 2; r++) {
    snprintf(path, sizeof path, "%s/node%d.json", dir, 1 - r);
    snprintf(text, sizeof text, RANK_TEMPLATE, r, 100);
    write_file(path, text);
  }
  fixture_import_ok(dir, NULL, NULL);
  assert_int_equal(q_int("SELECT count(*) FROM gpu"), 2);
  EXPECT_INTS("SELECT count(DISTINCT device), count(DISTINCT pid) FROM kernel", 2, 2);
  /* rank 0 keeps its own pid and device 0 */
  assert_int_equal(q_int("SELECT device FROM kernel WHERE pid = 100"), 0);
  assert_string_equal(q_text("SELECT value FROM meta WHERE key = 'input.0.rank'"), "0");
  assert_int_equal(q_int("SELECT count(*) FROM kernel WHERE pid >= 4194304"), 1);

  /* the same rank twice is refused */
  snprintf(path, sizeof path, "%s/node0.json", dir);
  snprintf(text, sizeof text, RANK_TEMPLATE, 0, 101);
  write_file(path, text);
  assert_int_equal(gw_import(dir, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "both rank 0"));
}

static void test_base_after_events_and_bare_array(void **state) {
  (void)state;
  /* the base written after the events still applies to them */
  fixture_import_ok(scratch_file("late_base.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": "
                                                   "\"kernel\", \"name\": \"k\", \"pid\": 0,"
                                                   " \"tid\": 7, \"ts\": 2.5, \"dur\": 1}], "
                                                   "\"baseTimeNanoseconds\": 1700000000000000000}"),
                    NULL, NULL);
  assert_int_equal(q_int("SELECT start_ns FROM kernel"), 1700000000000002500LL);
  /* the JSON Array Format: a bare list of events; string pid/tid and ts */
  fixture_import_ok(scratch_file("bare.json", "[{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"k\", "
                                              "\"pid\": \"0\", \"tid\": \"7\","
                                              " \"ts\": \"1700000000000001.25\", \"dur\": 1, \"args\": "
                                              "{\"correlation\": \"9\"}},\n"
                                              " {\"ph\": \"X\", \"cat\": \"cuda_runtime\", \"name\": "
                                              "\"cudaLaunchKernel\", \"pid\": 55,"
                                              " \"tid\": 55, \"ts\": 1700000000000000, \"dur\": 1e0}]"),
                    NULL, NULL);
  EXPECT_INTS("SELECT start_ns, correlation FROM kernel", 1700000000000001250LL, 9);
  assert_int_equal(q_int("SELECT end_ns - start_ns FROM api"), 1000);
  /* GPU records before the pid is known wait for it */
  assert_int_equal(q_int("SELECT pid FROM kernel"), 55);
}

static void test_trace_without_cpu_events_gets_a_stand_in_pid(void **state) {
  (void)state;
  fixture_import_ok(scratch_file("gpu_only.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": "
                                                  "\"kernel\", \"name\": \"k\", \"pid\": 3,"
                                                  " \"tid\": 7, \"ts\": 1700000000000000, \"dur\": 1}]}"),
                    NULL, NULL);
  EXPECT_INTS("SELECT pid, device FROM kernel", 4194304, 3);
  assert_int_equal(q_int("SELECT count(*) FROM gpu WHERE gpu = 3"), 1);
}

/* More distinct names than the bounded name table holds: every kernel keeps
 * a name that resolves. */
static void test_many_distinct_names(void **state) {
  (void)state;
  enum { N = 70000 };
  char path[512];
  snprintf(path, sizeof path, "%s/many.json", scratch);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"baseTimeNanoseconds\": 1700000000000000000, \"traceEvents\": [\n", f);
  fputs("{\"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"main\", \"pid\": 9, "
        "\"tid\": 9, \"ts\": 1, \"dur\": 1}",
        f);
  for (int i = 0; i < N; i++)
    fprintf(f,
            ",\n{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"kernel_%d\", "
            "\"pid\": 0, \"tid\": 7, \"ts\": %d.5,"
            " \"dur\": 0.5, \"args\": {\"correlation\": %d}}",
            i, 10 + i, i + 1);
  fputs("]}\n", f);
  fclose(f);
  fixture_import_ok(path, NULL, NULL);
  assert_int_equal(q_int("SELECT count(*) FROM kernel"), N);
  assert_int_equal(q_int("SELECT count(*) FROM kernel k JOIN trace_name n ON "
                         "n.pid = k.pid AND n.id = k.name_id"
                         " WHERE n.name = 'kernel_' || (k.correlation - 1)"),
                   N);
}

static void expect_error(const char *name, const char *json, const char *needle1, const char *needle2) {
  char err[512] = "";
  int rc = import_text(name, json, err, sizeof err);
  assert_int_equal(rc, GPUWHY_EXIT_INPUT);
  if (!strstr(err, name) || !strstr(err, needle1) || (needle2 && !strstr(err, needle2)))
    fail_msg("message for %s lacks '%s' / '%s': %s", name, needle1, needle2 ? needle2 : "", err);
}

static void test_bad_input_errors(void **state) {
  (void)state;
  expect_error("bad_char.json", "{\"traceEvents\": [{\"ph\": \"X\", x}]}", "byte 30", "not valid JSON");
  expect_error("truncated.json", "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\"", "ends at byte 44",
               "incomplete");
  expect_error("number_event.json", "{\"traceEvents\": [1, 2]}", "byte", "must be a JSON object");
  expect_error("no_events.json", "{\"schemaVersion\": 1}", "traceEvents", NULL);
  expect_error("events_object.json", "{\"traceEvents\": {\"a\": 1}}", "must be an array", NULL);
  expect_error("empty.json", "", "not a format gpuwhy imports", "empty file");
  expect_error("text.json", "hello, world\n", "not a format gpuwhy imports", "hello");
  expect_error("bad_device.json",
               "{\"traceEvents\": [{\"ph\": \"X\", \"cat\": \"kernel\", "
               "\"name\": \"k\", \"ts\": 1, \"dur\": 1,"
               " \"args\": {\"device\": 99999}}]}",
               "device id outside", "byte");
  /* nesting without end */
  char deep[4096];
  size_t n = (size_t)snprintf(deep, sizeof deep, "{\"traceEvents\": [{\"args\": ");
  for (int i = 0; i < 200; i++)
    deep[n++] = '[';
  deep[n] = '\0';
  expect_error("deep.json", deep, "deeper than 64", NULL);
}

static void test_huge_string_is_refused(void **state) {
  (void)state;
  char path[512], err[512] = "";
  snprintf(path, sizeof path, "%s/huge.json", scratch);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  fputs("{\"traceEvents\": [{\"name\": \"", f);
  for (int i = 0; i < (10 << 20) / 64; i++)
    fputs("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", f);
  fputs("\"}]}", f);
  fclose(f);
  assert_int_equal(gw_import(path, out_path, NULL, NULL, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "longer than"));
  assert_non_null(strstr(err, "byte"));
}

static void test_corrupt_and_truncated_gzip(void **state) {
  (void)state;
  /* read the gzip fixture, then damage it two ways */
  FILE *f = fopen(fixture("kineto_old_absolute.json.gz"), "rb");
  assert_non_null(f);
  unsigned char buf[4096];
  size_t n = fread(buf, 1, sizeof buf, f);
  fclose(f);
  assert_true(n > 100);
  char err[512] = "";
  assert_int_equal(gw_import_kineto_buffer(buf, n / 2, "cut.json.gz", ":memory:", err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "cut.json.gz"));
  assert_non_null(strstr(err, "truncated"));
  unsigned char bad[4096];
  memcpy(bad, buf, n);
  for (size_t i = 20; i < 60 && i < n; i++)
    bad[i] ^= 0x5a;
  assert_int_equal(gw_import_kineto_buffer(bad, n, "bad.json.gz", ":memory:", err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "bad.json.gz"));
  /* and the intact bytes import through the buffer entry point */
  assert_int_equal(gw_import_kineto_buffer(buf, n, "ok.json.gz", ":memory:", err, sizeof err), GPUWHY_EXIT_OK);
}

/* Calls named with or without CUPTI's version suffix; nothing else matches. */
static void test_cuda_call_names(void **state) {
  (void)state;
  struct {
    const char *name;
    int driver;
    uint32_t cbid;
  } cases[] = {
      {"cudaLaunchKernel", 0, 211},
      {"cudaLaunchKernel_v7000", 0, 211},
      {"cudaLaunchKernel_ptsz", 0, 214},
      {"cudaStreamSynchronize", 0, 131},
      {"cuStreamSynchronize", 1, 126},
      {"cuStreamSynchronize_ptsz", 1, 440},
      {"cuLaunchKernel", 1, 307},
      {"cuMemAlloc_v2", 1, 243},
      {"cudaLaunchKernel", 1, 0},
      {"cudaLaunchKernelX", 0, 0},
      {"cudaLaunchKernel_v", 0, 0},
      {"cudaLaunchKernel_vx1", 0, 0},
      {"cudaLaunch", 0, 0},
      {"", 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
    if (gw_cuda_call_cbid(cases[i].name, strlen(cases[i].name), cases[i].driver) != cases[i].cbid)
      fail_msg("%s (driver %d): %u, expected %u", cases[i].name, cases[i].driver,
               gw_cuda_call_cbid(cases[i].name, strlen(cases[i].name), cases[i].driver), cases[i].cbid);
  /* the length bounds the name: a longer buffer is not read past it */
  assert_int_equal(gw_cuda_call_cbid("cudaLaunchKernel_v7000 trailing", 22, 0), 211);
  assert_int_equal(gw_cuda_call_cbid("cudaLaunchKernel_v7000 trailing", 16, 0), 211);
  assert_int_equal(gw_cuda_call_cbid(NULL, 5, 0), 0);
}

static void test_failed_import_leaves_output_alone(void **state) {
  (void)state;
  write_file(out_path, "precious");
  char err[512] = "";
  assert_int_equal(import_text("broken.json", "{\"traceEvents\": [", err, sizeof err), GPUWHY_EXIT_INPUT);
  FILE *f = fopen(out_path, "r");
  assert_non_null(f);
  char text[32] = "";
  assert_non_null(fgets(text, sizeof text, f));
  fclose(f);
  assert_string_equal(text, "precious");
  /* and no temporary file is left beside it */
  char cmd[600];
  snprintf(cmd, sizeof cmd, "ls '%s'.importing-* >/dev/null 2>&1", out_path);
  assert_int_not_equal(system(cmd), 0);
}

static void test_parse_us(void **state) {
  (void)state;
  static const struct {
    const char *text;
    int ok;
    int64_t ns;
  } cases[] = {
      {"5119690658867.795", 1, 5119690658867795LL},
      {"1740461679470813.250", 1, 1740461679470813250LL},
      {"12.3456", 1, 12346}, /* rounded past the third decimal */
      {"7", 1, 7000},
      {"-2.5", 1, -2500},
      {"1.5e3", 1, 1500000},
      {"abc", 0, 0},
      {"", 0, 0},
      {"99999999999999999999", 0, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    int64_t ns = 0;
    int rc = gw_kineto_parse_us(cases[i].text, strlen(cases[i].text), &ns);
    if (cases[i].ok ? rc != 0 || ns != cases[i].ns : rc == 0)
      fail_msg("'%s': rc %d, %lld ns", cases[i].text, rc, (long long)ns);
  }
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test_setup_teardown(test_small_trace_fields, setup, teardown),
    cmocka_unit_test_setup_teardown(test_gzip_and_absolute_times, setup, teardown),
    cmocka_unit_test_setup_teardown(test_real_trace_kernel_count, setup, teardown),
    cmocka_unit_test_setup_teardown(test_directory_of_ranks, setup, teardown),
    cmocka_unit_test_setup_teardown(test_ranks_on_the_same_device_index_sit_side_by_side, setup, teardown),
    cmocka_unit_test_setup_teardown(test_base_after_events_and_bare_array, setup, teardown),
    cmocka_unit_test_setup_teardown(test_trace_without_cpu_events_gets_a_stand_in_pid, setup, teardown),
    cmocka_unit_test_setup_teardown(test_many_distinct_names, setup, teardown),
    cmocka_unit_test_setup_teardown(test_bad_input_errors, setup, teardown),
    cmocka_unit_test_setup_teardown(test_huge_string_is_refused, setup, teardown),
    cmocka_unit_test_setup_teardown(test_corrupt_and_truncated_gzip, setup, teardown),
    cmocka_unit_test_setup_teardown(test_failed_import_leaves_output_alone, setup, teardown),
    cmocka_unit_test(test_parse_us),
    cmocka_unit_test(test_cuda_call_names),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
