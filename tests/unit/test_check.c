/* gpuwhy check against the fake libnvidia-ml and the fixture trees of
 * tests/fixtures/check (README there): every row of every group, the
 * classification of every Xid code of the table, the load path with a stand-in
 * python3, malformed input, and the parsers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
/* cmocka needs the three headers above first */
#include <cmocka.h>

#include <gpuwhy/check.h>
#include <gpuwhy/gpuwhy.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check/check_internal.h"
#include "sources/kmsg.h"
#include "fixture_temp.h"
#include "support_env_reset.h"

static char fixture_dir[1024];
static char fake_python[1200];

static const char *fixture(const char *name) {
  static char path[1400];
  snprintf(path, sizeof path, "%s/%s", fixture_dir, name);
  return path;
}

/* Every test starts from the fake's defaults and no helper programs. */
static int setup(void **state) {
  (void)state;
  support_unset_env_prefixed((const char *const[]){"FAKE_", "GPUWHY_", NULL});
  /* The disk row judges the current directory: "/" in every fixture. */
  return chdir("/") == 0 && getenv("GW_FAKE_NVML") ? 0 : -1;
}

/* Sets the knobs of the fakes from "NAME=VALUE NAME=VALUE ..." (values
 * without spaces), or unsets the names again when set is 0. */
static void apply_knobs(const char *spec, int set) {
  char buf[1024];
  assert_true(strlen(spec) < sizeof buf);
  strcpy(buf, spec);
  for (char *save = NULL, *kv = strtok_r(buf, " ", &save); kv; kv = strtok_r(NULL, " ", &save)) {
    char *eq = strchr(kv, '=');
    assert_non_null(eq);
    *eq = '\0';
    if (set)
      setenv(kv, eq + 1, 1);
    else
      unsetenv(kv);
  }
}

static void set_knobs(const char *spec) {
  apply_knobs(spec, 1);
}

static struct gw_check_report *run_opts(struct gw_check_opts *opts) {
  struct gw_check_report *r = NULL;
  char err[600] = "";
  int rc = gw_check_run(opts, &r, err, sizeof err);
  if (rc != GPUWHY_EXIT_OK)
    fail_msg("gw_check_run: %d %s", rc, err);
  assert_non_null(r);
  return r;
}

static struct gw_check_report *run_root(const char *root_name) {
  struct gw_check_opts opts = {0};
  opts.root = fixture(root_name);
  opts.nvml_lib = getenv("GW_FAKE_NVML");
  return run_opts(&opts);
}

/* The report of the fixture tree root_name with the knobs of spec set for
 * this run only. */
static struct gw_check_report *run_with(const char *spec, const char *root_name) {
  apply_knobs(spec, 1);
  struct gw_check_report *r = run_root(root_name);
  apply_knobs(spec, 0);
  return r;
}

static const struct gw_check_item *find(const struct gw_check_report *r, const char *id) {
  for (int i = 0; i < r->nitems; i++)
    if (strcmp(r->items[i].id, id) == 0)
      return &r->items[i];
  return NULL;
}

static const struct gw_check_item *must_find(const struct gw_check_report *r, const char *id) {
  const struct gw_check_item *it = find(r, id);
  if (!it)
    fail_msg("no item %s", id);
  return it;
}

static void expect(const struct gw_check_report *r, const char *id, enum gw_check_status st, const char *text) {
  const struct gw_check_item *it = must_find(r, id);
  if (it->status != st)
    fail_msg("%s is %s, expected %s: %s", id, gw_check_status_name(it->status), gw_check_status_name(st), it->reason);
  if (text && !strstr(it->reason, text) && !strstr(it->fix, text))
    fail_msg("%s does not say '%s': %s | %s", id, text, it->reason, it->fix);
}

static double value(const struct gw_check_item *it, const char *name) {
  for (int i = 0; i < it->nvalues; i++)
    if (strcmp(it->values[i].name, name) == 0)
      return it->values[i].value;
  fail_msg("%s has no value %s", it->id, name);
  return -1;
}

static int count_prefix(const struct gw_check_report *r, const char *prefix) {
  int n = 0;
  for (int i = 0; i < r->nitems; i++)
    n += strncmp(r->items[i].id, prefix, strlen(prefix)) == 0;
  return n;
}

/* ---- no driver: one item, then the host ---- */

static void test_no_driver(void **state) {
  (void)state;
  struct gw_check_opts opts = {0};
  opts.root = fixture("healthy");
  opts.nvml_lib = "/nonexistent/libnvidia-ml.so.1";
  struct gw_check_report *r = run_opts(&opts);
  assert_int_equal(count_prefix(r, "driver."), 1);
  expect(r, "driver.nvml", GW_CHECK_FAIL, "no NVIDIA driver");
  assert_int_equal(count_prefix(r, "gpu"), 0);
  assert_int_equal(r->ngpus, 0);
  assert_string_equal(r->driver_version, "");
  expect(r, "host.governor", GW_CHECK_PASS, "performance");
  expect(r, "host.memory", GW_CHECK_PASS, "57.2 GiB of 62.8 GiB");
  assert_null(find(r, "host.numa")); /* no GPU to place */
  expect(r, "kmsg.xid", GW_CHECK_PASS, "No Xid");
  assert_int_equal(gw_check_exit_status(r), 1);
  gw_check_free(r);

  /* A driver that loads but does not start is the same single failure. */
  r = run_with("FAKE_NVML_INIT_FAIL=1", "healthy");
  assert_int_equal(count_prefix(r, "driver."), 1);
  expect(r, "driver.nvml", GW_CHECK_FAIL, "no NVIDIA driver in use: NVIDIA driver found but NVML did not start");
  gw_check_free(r);
  r = run_with("FAKE_NVML_GPUS=0", "healthy");
  expect(r, "driver.nvml", GW_CHECK_FAIL, "no GPU found");
  gw_check_free(r);
}

/* ---- a healthy idle box ---- */

static void idle_gpu_knobs(void) {
  set_knobs("FAKE_NVML_REASONS=0x1 FAKE_NVML_PSTATE=8 FAKE_NVML_SM_CLOCK_MHZ=345 FAKE_NVML_PROC_PIDS=none");
}

static void test_healthy(void **state) {
  (void)state;
  idle_gpu_knobs();
  struct gw_check_report *r = run_root("healthy");
  for (int i = 0; i < r->nitems; i++)
    if (r->items[i].status > GW_CHECK_NOTE)
      fail_msg("%s is %s: %s", r->items[i].id, gw_check_status_name(r->items[i].status), r->items[i].reason);
  assert_int_equal(gw_check_exit_status(r), 0);
  expect(r, "driver.nvml", GW_CHECK_PASS, "580.159.04");
  assert_int_equal(value(must_find(r, "driver.nvml"), "cuda_driver_version"), 13000);
  /* With a fixture root and no GPUWHY_PYTHON nothing was run. */
  expect(r, "driver.cuda_runtime", GW_CHECK_NOTE, "No CUDA runtime version");
  assert_null(find(r, "driver.load"));
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "Idle: P8, SM clock 345 of 1980 MHz (17%)");
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "--load");
  expect(r, "gpu0.power_limit", GW_CHECK_PASS, "Enforced limit 700 W, at the default 700 W (allowed 200-700 W)");
  expect(r, "gpu0.temperature", GW_CHECK_PASS, "45 C at idle (slowdown at 89 C, shutdown at 95 C)");
  expect(r, "gpu0.clock_reasons", GW_CHECK_PASS, "GPU idle");
  expect(r, "gpu0.throttle_time", GW_CHECK_PASS, "SW power cap 1.500 s");
  expect(r, "gpu0.pcie_link", GW_CHECK_PASS, "Gen 5 x16 at idle, the GPU's maximum");
  expect(r, "gpu0.ecc", GW_CHECK_PASS, "3 corrected and 0 uncorrected");
  expect(r, "gpu0.row_remap", GW_CHECK_PASS, "none pending");
  expect(r, "gpu0.persistence", GW_CHECK_PASS, "On");
  expect(r, "gpu0.compute_mode", GW_CHECK_PASS, "Default");
  expect(r, "gpu0.mig", GW_CHECK_PASS, "Off");
  expect(r, "gpu0.processes", GW_CHECK_PASS, "No process");
  expect(r, "kmsg.xid", GW_CHECK_PASS, "No Xid");
  expect(r, "kmsg.nvrm", GW_CHECK_NOTE, "loading NVIDIA UNIX x86_64 Kernel Module");
  expect(r, "host.power_source", GW_CHECK_PASS, "mains");
  expect(r, "host.swap", GW_CHECK_PASS, "none in use");
  const struct gw_check_item *cores = must_find(r, "host.cpu_cores");
  assert_int_equal(value(cores, "physical_cores"), 4);
  assert_int_equal(value(cores, "logical_cpus"), 8);
  assert_int_equal(value(cores, "suggested_num_workers_total"), 2);
  expect(r, "host.disk", GW_CHECK_PASS, "partition nvme0n1p2 of disk nvme0n1, a solid-state disk");
  assert_int_equal(value(must_find(r, "host.disk"), "rotational"), 0);
  expect(r, "host.numa", GW_CHECK_PASS, "One NUMA node");
  assert_int_equal(r->ngpus, 1);
  assert_string_equal(r->gpus[0].pci_bus_id, "00000000:18:00.0");
  gw_check_free(r);
}

/* ---- each GPU row, against the fake's knobs ---- */

static void test_troubled_gpus(void **state) {
  (void)state;
  set_knobs("FAKE_NVML_GPUS=2 FAKE_NVML_REASONS=0x1 FAKE_NVML_PSTATE=8 FAKE_NVML_SM_CLOCK_MHZ=345 "
            "FAKE_NVML_POWER_LIMIT_MW=700000,450000 FAKE_NVML_PCIE_GEN=5,3 FAKE_NVML_TEMP_C=41,83 "
            "FAKE_NVML_PERSISTENCE=1,0 FAKE_NVML_COMPUTE_MODE=0,3 FAKE_NVML_ECC_UNCORRECTED=0,2 "
            "FAKE_NVML_REMAP_PENDING=0,1 FAKE_NVML_VIOL_HW_THERMAL_NS=0,12500000000");
  struct gw_check_report *r = run_root("troubled");
  expect(r, "gpu0.power_limit", GW_CHECK_PASS, NULL);
  expect(r, "gpu1.power_limit", GW_CHECK_WARN, "Enforced limit 450 W is below the default 700 W");
  expect(r, "gpu1.power_limit", GW_CHECK_WARN, "sudo nvidia-smi -i 1 -pl 700");
  expect(r, "gpu0.pcie_link", GW_CHECK_PASS, NULL);
  /* Idle: a slow link may just be power saving. */
  expect(r, "gpu1.pcie_link", GW_CHECK_WARN, "Gen 3 x16 at idle, below the GPU's gen 5 x16 (about 15.8 of 63.0");
  expect(r, "gpu1.temperature", GW_CHECK_WARN, "Only 6 C below the slowdown threshold");
  expect(r, "gpu0.persistence", GW_CHECK_PASS, NULL);
  expect(r, "gpu1.persistence", GW_CHECK_WARN, "nvidia-persistenced");
  expect(r, "gpu1.compute_mode", GW_CHECK_WARN, "Exclusive_Process");
  expect(r, "gpu1.ecc", GW_CHECK_WARN, "2 uncorrected");
  expect(r, "gpu1.row_remap", GW_CHECK_WARN, "pending");
  expect(r, "gpu1.throttle_time", GW_CHECK_WARN, "HW thermal slowdown 12.5 s");
  assert_true(value(must_find(r, "gpu1.throttle_time"), "hw_thermal_s") == 12.5);
  expect(r, "gpu0.throttle_time", GW_CHECK_PASS, NULL);
  /* Processes: 4242 is mine, 4243 another user's; on GPU 1, 4342 has no
   * /proc entry and 4343 is mine. */
  expect(r, "gpu0.processes", GW_CHECK_WARN, "pid 4243 (python, uid 1001, another user, 2.0 GiB)");
  expect(r, "gpu0.processes", GW_CHECK_WARN, "pid 4242 (python3, yours, 8.0 GiB)");
  assert_int_equal(value(must_find(r, "gpu0.processes"), "other_user_processes"), 1);
  expect(r, "gpu1.processes", GW_CHECK_WARN, "pid 4342 (not visible here");
  assert_int_equal(value(must_find(r, "gpu1.processes"), "hidden_processes"), 1);
  /* Host side of the troubled tree. */
  expect(r, "host.governor", GW_CHECK_WARN, "powersave");
  expect(r, "host.governor", GW_CHECK_WARN, "cpupower frequency-set -g performance");
  expect(r, "host.power_source", GW_CHECK_WARN, "battery");
  expect(r, "host.memory", GW_CHECK_WARN, "4.0 GiB of 64.0 GiB available (6%)");
  expect(r, "host.swap", GW_CHECK_WARN, "1024 MiB of 8.0 GiB swap in use");
  expect(r, "host.cpu_cores", GW_CHECK_WARN, "Fewer than two cores per GPU");
  expect(r, "host.disk", GW_CHECK_WARN, "partition sda1 of disk sda, a spinning disk");
  expect(r, "host.numa", GW_CHECK_NOTE, "GPU 0 sits on node 0 (CPUs 0-1). GPU 1 sits on node 1 (CPUs 2-3).");
  assert_int_equal(value(must_find(r, "host.numa"), "gpu1_numa_node"), 1);
  assert_int_equal(gw_check_exit_status(r), 1); /* Xid 48 in the log */
  gw_check_free(r);
}

struct knob_case {
  const char *knob, *value;
  const char *id;
  enum gw_check_status status;
  const char *text;
};

/* One knob at a time on the healthy tree; each case names what must follow. */
static void test_gpu_rows_one_knob(void **state) {
  (void)state;
  static const struct knob_case cases[] = {
      {"FAKE_NVML_TEMP_C", "89", "gpu0.temperature", GW_CHECK_FAIL, "at its slowdown threshold"},
      {"FAKE_NVML_TEMP_C", "79", "gpu0.temperature", GW_CHECK_WARN, "Only 10 C below"},
      {"FAKE_NVML_TEMP_C", "78", "gpu0.temperature", GW_CHECK_PASS, "11 C of headroom"},
      {"FAKE_NVML_POWER_LIMIT_MW", "699500", "gpu0.power_limit", GW_CHECK_PASS, "Enforced limit 700 W"},
      {"FAKE_NVML_POWER_LIMIT_MW", "698000", "gpu0.power_limit", GW_CHECK_WARN, "below the default"},
      {"FAKE_NVML_REASONS", "0x8", "gpu0.clock_reasons", GW_CHECK_FAIL, "HW slowdown"},
      {"FAKE_NVML_REASONS", "0x40", "gpu0.clock_reasons", GW_CHECK_FAIL, "HW thermal slowdown"},
      {"FAKE_NVML_REASONS", "0x80", "gpu0.clock_reasons", GW_CHECK_FAIL, "HW power brake"},
      {"FAKE_NVML_REASONS", "0x20", "gpu0.clock_reasons", GW_CHECK_WARN, "SW thermal slowdown"},
      {"FAKE_NVML_REASONS", "0x2", "gpu0.clock_reasons", GW_CHECK_NOTE, "applications clocks"},
      {"FAKE_NVML_REASONS", "0x4", "gpu0.clock_reasons", GW_CHECK_PASS, "not a fault"},
      {"FAKE_NVML_REASONS", "0x0", "gpu0.clock_reasons", GW_CHECK_PASS, "None now"},
      {"FAKE_NVML_VIOL_HW_POWER_BRAKE_NS", "1", "gpu0.throttle_time", GW_CHECK_WARN, "HW power brake 0.000 s"},
      {"FAKE_NVML_VIOL_SW_THERMAL_NS", "999999999", "gpu0.throttle_time", GW_CHECK_PASS, "SW thermal slowdown 1.000"},
      {"FAKE_NVML_VIOL_SW_THERMAL_NS", "1000000000", "gpu0.throttle_time", GW_CHECK_WARN, "ran hot enough"},
      {"FAKE_NVML_PCIE_WIDTH", "8", "gpu0.pcie_link", GW_CHECK_WARN, "Gen 5 x8 now, busy with other work, below"},
      {"FAKE_NVML_ECC_UNCORRECTED", "1", "gpu0.ecc", GW_CHECK_WARN, "1 uncorrected"},
      {"FAKE_NVML_REMAP_FAILURE", "1", "gpu0.row_remap", GW_CHECK_FAIL, "a remap FAILED"},
      {"FAKE_NVML_REMAP_PENDING", "1", "gpu0.row_remap", GW_CHECK_WARN, "pending"},
      {"FAKE_NVML_PERSISTENCE", "0", "gpu0.persistence", GW_CHECK_WARN, "Off"},
      {"FAKE_NVML_COMPUTE_MODE", "1", "gpu0.compute_mode", GW_CHECK_WARN, "Exclusive_Thread"},
      {"FAKE_NVML_COMPUTE_MODE", "2", "gpu0.compute_mode", GW_CHECK_FAIL, "Prohibited"},
      {"FAKE_NVML_COMPUTE_MODE", "3", "gpu0.compute_mode", GW_CHECK_WARN, "nvidia-smi -i 0 -c DEFAULT"},
      {"FAKE_NVML_MIG", "1", "gpu0.mig", GW_CHECK_NOTE, "split into instances"},
      {"FAKE_NVML_PROC_PIDS", "4242", "gpu0.processes", GW_CHECK_WARN, "pid 4242 (not visible here, 1.0 GiB)"},
      /* Busy without our load: judged like work. */
      {"FAKE_NVML_PSTATE", "8", "gpu0.clocks", GW_CHECK_WARN, "P8 means the driver keeps it in a low-power state"},
      {"FAKE_NVML_PSTATE", "2", "gpu0.clocks", GW_CHECK_PASS, "P2 is the P-state GeForce cards use"},
      {"FAKE_NVML_SM_CLOCK_MHZ", "900", "gpu0.clocks", GW_CHECK_WARN, "locked or application clocks"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setup(NULL);
    setenv(cases[i].knob, cases[i].value, 1);
    struct gw_check_report *r = run_root("healthy");
    print_message("%s=%s\n", cases[i].knob, cases[i].value);
    expect(r, cases[i].id, cases[i].status, cases[i].text);
    gw_check_free(r);
  }
  /* A clock under its maximum at the power cap is the power budget. */
  setup(NULL);
  set_knobs("FAKE_NVML_SM_CLOCK_MHZ=1410 FAKE_NVML_REASONS=0x4");
  struct gw_check_report *r = run_root("healthy");
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "at its power limit (SW power cap)");
  gw_check_free(r);
  /* Not supported calls leave rows as notes, never as failures. */
  setup(NULL);
  setenv("FAKE_NVML_NOT_SUPPORTED",
         "nvmlDeviceGetRemappedRows,nvmlDeviceGetCurrPcieLinkGeneration,nvmlDeviceGetTotalEccErrors,"
         "nvmlDeviceGetFieldValues,nvmlDeviceGetMigMode,nvmlDeviceGetEccMode",
         1);
  r = run_root("healthy");
  expect(r, "gpu0.row_remap", GW_CHECK_NOTE, "Not reported");
  expect(r, "gpu0.pcie_link", GW_CHECK_NOTE, "does not report");
  expect(r, "gpu0.ecc", GW_CHECK_NOTE, "no ECC error counts");
  expect(r, "gpu0.throttle_time", GW_CHECK_NOTE, "does not report");
  assert_null(find(r, "gpu0.mig"));
  gw_check_free(r);
}

static void test_gpu_lost(void **state) {
  (void)state;
  set_knobs("FAKE_NVML_GPUS=2 FAKE_NVML_LOST_AFTER=0 FAKE_NVML_LOST_GPU=1");
  struct gw_check_report *r = run_root("healthy");
  expect(r, "gpu1.present", GW_CHECK_FAIL, "does not answer");
  assert_int_equal(count_prefix(r, "gpu1."), 1);
  assert_non_null(find(r, "gpu0.clocks"));
  gw_check_free(r);
}

/* ---- kernel log ---- */

/* Every code of the Xid table has a line in xid_all/dev/kmsg: each becomes
 * one item, failed when the table says it needs a reset or service. */
static void test_every_xid_code(void **state) {
  (void)state;
  struct gw_check_report *r = run_root("xid_all");
  int table_codes = 0;
  for (int code = 0; code < 1000; code++) {
    const struct gw_xid_info *info = gw_xid_lookup(code);
    if (!info)
      continue;
    table_codes++;
    char id[32];
    snprintf(id, sizeof id, "kmsg.xid.%d", code);
    const struct gw_check_item *it = find(r, id);
    if (!it)
      fail_msg("Xid %d of the table has no item: add its line to tests/fixtures/check/xid_all/dev/kmsg", code);
    expect(r, id, info->severity == 2 ? GW_CHECK_FAIL : GW_CHECK_WARN, info->mnemonic);
    expect(r, id, info->severity == 2 ? GW_CHECK_FAIL : GW_CHECK_WARN, "(GPU 0)");
    assert_int_equal(value(it, "count"), 1);
    assert_int_equal(value(it, "severity"), info->severity);
    assert_string_equal(it->group, "kmsg");
    char line[64];
    snprintf(line, sizeof line, "fixture line for Xid %d", code);
    if (!strstr(it->reason, line))
      fail_msg("%s does not quote its line: %s", id, it->reason);
  }
  assert_true(table_codes >= 28);
  expect(r, "kmsg.xid.137", GW_CHECK_WARN, "not in gpuwhy's table");
  assert_int_equal(count_prefix(r, "kmsg.xid."), table_codes + 1);
  assert_null(find(r, "kmsg.xid")); /* the all-clear item only without Xids */
  gw_check_free(r);
}

static void test_xid_grouping(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "2", 1);
  struct gw_check_report *r = run_root("troubled");
  expect(r, "kmsg.xid.13", GW_CHECK_WARN,
         "2 times, first 3600.250 s and last 3612.500 s after boot on 0000:18:00 "
         "(GPU 0)");
  const struct gw_check_item *x13 = must_find(r, "kmsg.xid.13");
  assert_int_equal(value(x13, "count"), 2);
  assert_true(value(x13, "last_s_after_boot") == 3612.5);
  expect(r, "kmsg.xid.48", GW_CHECK_FAIL, "once, 7200.125 s after boot on 0000:19:00 (GPU 1)");
  expect(r, "kmsg.xid.63", GW_CHECK_WARN, "Row Remapper");
  expect(r, "kmsg.nvrm", GW_CHECK_NOTE, "2 other driver (NVRM) lines");
  gw_check_free(r);
}

static void test_kmsg_unreadable(void **state) {
  (void)state;
  struct gw_check_report *r = run_root("no_kmsg");
  expect(r, "kmsg.access", GW_CHECK_NOTE, "does not exist");
  assert_int_equal(count_prefix(r, "kmsg."), 1);
  gw_check_free(r);
}

/* ---- CUDA runtime ---- */

static void test_cuda_runtime(void **state) {
  (void)state;
  setenv("GPUWHY_PYTHON", fake_python, 1);
  struct gw_check_report *r = run_root("troubled");
  /* PyTorch 13.0 matches; the toolkit's 13.1 is one minor newer. */
  expect(r, "driver.cuda_runtime", GW_CHECK_WARN, "PyTorch 2.11.0+cu130 (/opt/venv/lib/python3.12/site-packages/torch");
  expect(r, "driver.cuda_runtime", GW_CHECK_WARN, "uses CUDA 13.0");
  expect(r, "driver.cuda_runtime", GW_CHECK_WARN, "CUDA toolkit (/usr/local/cuda/version.json) uses CUDA 13.1");
  expect(r, "driver.cuda_runtime", GW_CHECK_WARN, "minor-version compatibility");
  expect(r, "driver.cuda_runtime", GW_CHECK_WARN,
         "runtime /opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcudart.so.13, CUPTI "
         "/opt/venv/lib/python3.12/site-packages/nvidia/cu13/lib/libcupti.so.13");
  assert_int_equal(value(must_find(r, "driver.cuda_runtime"), "torch_cuda_version"), 13000);
  gw_check_free(r);

  /* What the runtime row says with one thing changed, each on its own. */
  static const struct {
    const char *knobs, *root;
    enum gw_check_status status;
    const char *says[2];
  } changes[] = {
      /* A driver one major behind cannot start the runtime at all. */
      {"FAKE_NVML_CUDA_VERSION=12080",
       "troubled",
       GW_CHECK_FAIL,
       {"The driver supports CUDA up to 12.8", "will not start"}},
      {"FAKE_TORCH=cpu", "healthy", GW_CHECK_WARN, {"PyTorch 2.11.0+cpu", "has no CUDA"}},
      {"FAKE_TORCH=none", "healthy", GW_CHECK_NOTE, {"No CUDA runtime version", NULL}},
      /* A python that does not exist is skipped quietly. */
      {"GPUWHY_PYTHON=/nonexistent/python3", "healthy", GW_CHECK_NOTE, {"No CUDA runtime version", NULL}},
  };
  for (size_t i = 0; i < sizeof changes / sizeof changes[0]; i++) {
    r = run_with(changes[i].knobs, changes[i].root);
    for (int k = 0; k < 2 && changes[i].says[k]; k++)
      expect(r, "driver.cuda_runtime", changes[i].status, changes[i].says[k]);
    gw_check_free(r);
  }
}

/* ANY: a field the case does not check. */
#define ANY (-99)

static void test_parsers(void **state) {
  (void)state;
  static const struct {
    int (*parse)(const char *, struct check_cuda_version *);
    const char *text;
    int rc, major, minor;
  } versions[] = {
      {gw_check_parse_nvcc,
       "nvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, release 13.0, "
       "V13.0.88\nBuild cuda_13.0.r13.0/compiler.36424714_0\n",
       0, 13, 0},
      {gw_check_parse_nvcc, "release 12.4, V12.4.131", -1, ANY, ANY}, /* no ", release " */
      {gw_check_parse_nvcc, "Cuda compilation tools, release x.y", -1, ANY, ANY},
      {gw_check_parse_version_json,
       "{\"cuda\" : {\"name\" : \"CUDA SDK\", \"version\" : \"12.4.1\"}, "
       "\"cuda_cudart\": {\"version\": \"12.4.127\"}}",
       0, 12, 4},
      /* The "version" of a later component must not be taken for the SDK's. */
      {gw_check_parse_version_json, "{\"cuda\": {\"name\": \"x\"}, \"cuda_cudart\": {\"version\": \"1.2\"}}", -1, ANY,
       ANY},
      {gw_check_parse_version_json, "{\"cuda\": \"13.0\"}", -1, ANY, ANY},
      {gw_check_parse_version_json, "", -1, ANY, ANY},
      {gw_check_parse_major_minor, "13.0", 0, ANY, ANY},
      {gw_check_parse_major_minor, "None", -1, ANY, ANY},
      {gw_check_parse_major_minor, "13", -1, ANY, ANY},
      {gw_check_parse_major_minor, "13.x", -1, ANY, ANY},
      {gw_check_parse_major_minor, "12.8.1", 0, ANY, 8},
  };
  for (size_t i = 0; i < sizeof versions / sizeof versions[0]; i++) {
    struct check_cuda_version v = {-1, -1};
    int rc = versions[i].parse(versions[i].text, &v);
    if (rc != versions[i].rc || (versions[i].major != ANY && v.major != versions[i].major) ||
        (versions[i].minor != ANY && v.minor != versions[i].minor))
      fail_msg("'%s': rc %d, %d.%d", versions[i].text, rc, v.major, v.minor);
  }

  static const struct {
    const char *text;
    int rc, domain, bus, device, function;
  } pci[] = {
      {"00000000:18:00.0", 0, 0, 0x18, 0, ANY}, {"0000:3b:1c", 0, ANY, 0x3b, 0x1c, 0},
      {"0001:00:06.1", 0, 1, ANY, ANY, 1},      {"unknown", -1, ANY, ANY, ANY, ANY},
      {"zz:18:00.0", -1, ANY, ANY, ANY, ANY},
  };
  for (size_t i = 0; i < sizeof pci / sizeof pci[0]; i++) {
    unsigned got[4] = {0};
    int rc = gw_check_parse_pci(pci[i].text, &got[0], &got[1], &got[2], &got[3]);
    const int want[4] = {pci[i].domain, pci[i].bus, pci[i].device, pci[i].function};
    assert_int_equal(rc, pci[i].rc);
    for (int k = 0; k < 4; k++)
      if (want[k] != ANY && got[k] != (unsigned)want[k])
        fail_msg("'%s': field %d is %u, expected %d", pci[i].text, k, got[k], want[k]);
  }
}

/* ---- the load, through the stand-in python ---- */

static void test_load(void **state) {
  (void)state;
  char log[] = "/tmp/gw_check_load_XXXXXX";
  fixture_temp_file(log);
  setenv("GPUWHY_PYTHON", fake_python, 1);
  setenv("FAKE_LOAD_LOG", log, 1);
  set_knobs("FAKE_NVML_GPUS=2 FAKE_NVML_PCIE_GEN=3 FAKE_NVML_PROC_PIDS=none");
  struct gw_check_opts opts = {0};
  opts.root = fixture("healthy");
  opts.nvml_lib = getenv("GW_FAKE_NVML");
  opts.load = 1;
  opts.load_s = 1;
  struct gw_check_report *r = run_opts(&opts);
  assert_int_equal(r->load_ran, 1);
  expect(r, "driver.load", GW_CHECK_PASS, "GPU 0 reached 480 TFLOP/s. GPU 1 reached 480 TFLOP/s.");
  /* Under work a slow link is a fault, not power saving. */
  expect(r, "gpu0.pcie_link", GW_CHECK_FAIL, "under the load at its best");
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "Under the load: P0, SM clock median 1755 of 1980 MHz (89%)");
  expect(r, "gpu0.temperature", GW_CHECK_PASS, "under the load at its highest");
  /* The energy counter, read at the start and the end of the load. */
  const struct gw_check_item *power = must_find(r, "gpu0.power_limit");
  assert_true(value(power, "load_avg_power_w") > 0);
  gw_check_free(r);
  /* One process per GPU, each pinned by the GPU's UUID. */
  char text[512] = "";
  FILE *f = fopen(log, "r");
  assert_non_null(f);
  size_t n = fread(text, 1, sizeof text - 1, f);
  fclose(f);
  text[n] = '\0';
  assert_non_null(strstr(text, "GPU-fa4e0000-0000-4000-8000-000000000000\n"));
  assert_non_null(strstr(text, "GPU-fa4e0000-0000-4000-8000-000000000001\n"));
  unlink(log);
  unsetenv("FAKE_LOAD_LOG");

  /* A GPU at its power limit moves its clock: the median under the load is
   * judged and the range shown; with the SW power cap as the reason a low
   * clock passes, with no reason at all it is a warning. */
  set_knobs("FAKE_NVML_SM_CLOCKS=1980,1980,1980,1500 FAKE_NVML_REASONS=0x4");
  r = run_opts(&opts);
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "SM clock median 1500 of 1980 MHz (76%), from 1500 to 1980 MHz");
  expect(r, "gpu0.clocks", GW_CHECK_PASS, "at its power limit (SW power cap)");
  assert_true(value(must_find(r, "gpu0.clocks"), "sm_clock_mhz") == 1500);
  assert_true(value(must_find(r, "gpu0.clocks"), "sm_clock_max_seen_mhz") == 1980);
  gw_check_free(r);
  setenv("FAKE_NVML_REASONS", "0", 1);
  r = run_opts(&opts);
  expect(r, "gpu0.clocks", GW_CHECK_WARN, "with no clock event reason given");
  gw_check_free(r);
  unsetenv("FAKE_NVML_SM_CLOCKS");
  unsetenv("FAKE_NVML_REASONS");

  /* A load that cannot run leaves idle readings, and says so. */
  setenv("FAKE_LOAD", "fail", 1);
  r = run_opts(&opts);
  assert_int_equal(r->load_ran, 0);
  expect(r, "driver.load", GW_CHECK_WARN, "PyTorch sees no CUDA GPU");
  expect(r, "gpu0.pcie_link", GW_CHECK_WARN, "only a full load tells");
  gw_check_free(r);

  setenv("FAKE_LOAD", "crash", 1);
  r = run_opts(&opts);
  expect(r, "driver.load", GW_CHECK_WARN, "RuntimeError: CUDA error: out of memory");
  gw_check_free(r);

  /* No python at all. */
  setenv("GPUWHY_PYTHON", "/nonexistent/python3", 1);
  r = run_opts(&opts);
  expect(r, "driver.load", GW_CHECK_WARN, "cannot run /nonexistent/python3");
  gw_check_free(r);

  /* MIG GPUs are left out of the load. */
  setenv("GPUWHY_PYTHON", fake_python, 1);
  unsetenv("FAKE_LOAD");
  setenv("FAKE_NVML_MIG", "0,1", 1);
  r = run_opts(&opts);
  expect(r, "driver.load", GW_CHECK_WARN, "GPU 1: MIG is enabled");
  expect(r, "gpu0.pcie_link", GW_CHECK_FAIL, NULL);
  expect(r, "gpu1.pcie_link", GW_CHECK_WARN, NULL);
  gw_check_free(r);
}

/* ---- bad input ---- */

static void test_malformed_tree(void **state) {
  (void)state;
  setenv("FAKE_NVML_PROC_PIDS", "4242,4999", 1);
  struct gw_check_report *r = run_root("malformed");
  expect(r, "host.memory", GW_CHECK_NOTE, "/proc/meminfo line 1: MemTotal value 'garbage' is not a number");
  expect(r, "host.governor", GW_CHECK_NOTE, "No cpufreq governor");
  expect(r, "host.disk", GW_CHECK_NOTE, "/proc/self/mountinfo line 1 is not in the kernel's format");
  expect(r, "host.numa", GW_CHECK_NOTE, "0000:18:00.0/numa_node is missing or not a number");
  expect(r, "host.cpu_cores", GW_CHECK_WARN, "no core ids");
  expect(r, "gpu0.processes", GW_CHECK_WARN, "pid 4242 (py, owner unknown");
  expect(r, "gpu0.processes", GW_CHECK_WARN, "pid 4999 (not visible here");
  expect(r, "kmsg.nvrm", GW_CHECK_NOTE, "skipped 8 malformed records");
  expect(r, "kmsg.xid.48", GW_CHECK_FAIL, NULL);
  expect(r, "host.power_source", GW_CHECK_PASS, "No battery or power supply");
  gw_check_free(r);

  struct gw_check_opts opts = {0};
  struct gw_check_report *none = NULL;
  char err[600];
  opts.root = "/nonexistent/tree";
  assert_int_equal(gw_check_run(&opts, &none, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_null(none);
  assert_non_null(strstr(err, "--root /nonexistent/tree"));
  opts.root = fixture("README.md");
  assert_int_equal(gw_check_run(&opts, &none, err, sizeof err), GPUWHY_EXIT_INPUT);
  assert_non_null(strstr(err, "not a directory"));

  /* A tree without /proc/stat: one note instead of the host items. */
  setup(NULL);
  opts.root = fixture("bin");
  opts.nvml_lib = getenv("GW_FAKE_NVML");
  r = run_opts(&opts);
  expect(r, "host.facts", GW_CHECK_NOTE, "host items were skipped");
  assert_int_equal(count_prefix(r, "host."), 1);
  gw_check_free(r);
}

static void test_data_dir(void **state) {
  (void)state;
  struct gw_check_opts opts = {0};
  opts.root = fixture("troubled");
  opts.nvml_lib = getenv("GW_FAKE_NVML");
  opts.data_dir = "/mnt/shared data/imagenet";
  struct gw_check_report *r = run_opts(&opts);
  /* The mount point has an escaped space in mountinfo. */
  expect(r, "host.disk", GW_CHECK_NOTE,
         "The data directory /mnt/shared data/imagenet is on fileserver:/export/data (nfs4, mounted at "
         "/mnt/shared data), a network");
  gw_check_free(r);
  opts.data_dir = "/mnt/shared dataset"; /* not under "/mnt/shared data" */
  r = run_opts(&opts);
  expect(r, "host.disk", GW_CHECK_WARN, "mounted at /)");
  gw_check_free(r);
  opts.data_dir = "relative/dir";
  r = run_opts(&opts);
  expect(r, "host.disk", GW_CHECK_NOTE, "absolute path");
  gw_check_free(r);
}

/* ---- output ---- */

static void test_render(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "2", 1);
  struct gw_check_report *r = run_root("troubled");
  char *text = NULL;
  size_t len = 0;
  FILE *out = open_memstream(&text, &len);
  gw_check_print_text(out, r, 0);
  fclose(out);
  assert_non_null(strstr(text, "\nGPU 1  NVIDIA H200 (fake)  00000000:19:00.0  140.4 GiB\n"));
  assert_non_null(strstr(text, "\n  FAIL  Xid 48  "));
  assert_null(strchr(text, '\033'));
  /* Lines stay within 100 columns unless one word is longer. */
  for (char *line = text; *line;) {
    char *nl = strchr(line, '\n');
    size_t n = nl ? (size_t)(nl - line) : strlen(line);
    if (n > 100 && memchr(line + 32, ' ', n - 32))
      fail_msg("line over 100 columns: %.*s", (int)n, line);
    if (!nl)
      break;
    line = nl + 1;
  }
  char summary[96];
  snprintf(summary, sizeof summary, ": exit status %d\n", gw_check_exit_status(r));
  assert_non_null(strstr(text, summary));
  free(text);

  out = open_memstream(&text, &len);
  gw_check_print_text(out, r, 1);
  fclose(out);
  assert_non_null(strstr(text, "\033[1;31mFAIL\033[0m"));
  free(text);

  out = open_memstream(&text, &len);
  gw_check_print_json(out, r);
  fclose(out);
  assert_non_null(strstr(text, "\"schema\": \"gpuwhy.check/2\""));
  assert_non_null(strstr(text, "\"exit_status\": 1"));
  assert_non_null(strstr(text, "\"driver\": {\"version\": \"580.159.04\", \"cuda\": \"13.0\"}"));
  assert_non_null(strstr(text, "{\"id\": \"kmsg.xid.48\", \"group\": \"kmsg\", \"gpu\": null, \"status\": \"fail\""));
  assert_non_null(strstr(text, "\"count\": 1"));
  free(text);
  gw_check_free(r);
}

static void test_exit_status(void **state) {
  (void)state;
  struct gw_check_item items[3];
  memset(items, 0, sizeof items);
  struct gw_check_report r = {0};
  r.items = items;
  assert_int_equal(gw_check_exit_status(&r), 0);
  r.nitems = 2;
  items[1].status = GW_CHECK_NOTE;
  assert_int_equal(gw_check_exit_status(&r), 0);
  items[0].status = GW_CHECK_WARN;
  assert_int_equal(gw_check_exit_status(&r), 1);
  r.nitems = 3;
  items[2].status = GW_CHECK_FAIL;
  assert_int_equal(gw_check_exit_status(&r), 1); /* 2 is the usage error's alone */
  assert_string_equal(gw_check_status_name(GW_CHECK_WARN), "warn");
}

int main(void) {
  const char *fixtures = getenv("GW_FIXTURES");
  if (!fixtures || !getenv("GW_FAKE_NVML")) {
    fprintf(stderr, "GW_FIXTURES and GW_FAKE_NVML must be set (ctest sets them)\n");
    return 77;
  }
  snprintf(fixture_dir, sizeof fixture_dir, "%s/check", fixtures);
  snprintf(fake_python, sizeof fake_python, "%s/bin/python3-fake", fixture_dir);
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup(test_no_driver, setup),     cmocka_unit_test_setup(test_healthy, setup),
      cmocka_unit_test_setup(test_troubled_gpus, setup), cmocka_unit_test_setup(test_gpu_rows_one_knob, setup),
      cmocka_unit_test_setup(test_gpu_lost, setup),      cmocka_unit_test_setup(test_every_xid_code, setup),
      cmocka_unit_test_setup(test_xid_grouping, setup),  cmocka_unit_test_setup(test_kmsg_unreadable, setup),
      cmocka_unit_test_setup(test_cuda_runtime, setup),  cmocka_unit_test_setup(test_parsers, setup),
      cmocka_unit_test_setup(test_load, setup),          cmocka_unit_test_setup(test_malformed_tree, setup),
      cmocka_unit_test_setup(test_data_dir, setup),      cmocka_unit_test_setup(test_render, setup),
      cmocka_unit_test_setup(test_exit_status, setup),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
