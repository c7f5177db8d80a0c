/* The NVML source against the fake libnvidia-ml (tests/fake_nvml), loaded
 * through the real dlopen path. The fake's knobs are environment variables
 * read at nvmlInit_v2, so each test sets them before gw_nvml_open. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>

#include <cmocka.h>

#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sources/nvml.h"
#include "support_env_reset.h"
#include "support_event_capture.h"

#define MS 1000000LL
#define T0 1795970817000000000LL /* an arbitrary CLOCK_REALTIME instant */
#define GIB (1024.0 * 1024 * 1024)
#define MIB (1024.0 * 1024)

static const char *fake_path(void) {
  return getenv("GW_FAKE_NVML");
}

/* Every test starts from the fake's defaults: drop all FAKE_NVML_* knobs. */
static int setup(void **state) {
  (void)state;
  support_unset_env_prefixed((const char *const[]){"FAKE_NVML_", NULL});
  unsetenv("GPUWHY_NVML_LIB");
  return fake_path() ? 0 : -1;
}

/* The handle a test holds, closed by teardown when an assertion jumped out
 * early, so the fake is shut down and the next test's knobs are read. */
static struct gw_nvml *open_handle;

static void close_fake(struct gw_nvml *nv) {
  if (nv == open_handle)
    open_handle = NULL;
  gw_nvml_close(nv);
}

static int teardown(void **state) {
  (void)state;
  if (open_handle)
    gw_nvml_close(open_handle);
  open_handle = NULL;
  return 0;
}

static struct gw_nvml *open_fake(void) {
  struct gw_nvml *nv = NULL;
  struct gw_err err = {{0}};
  gw_status st = gw_nvml_open(&nv, fake_path(), &err);
  if (st != GW_OK)
    fail_msg("gw_nvml_open: %d %s", st, err.msg);
  assert_non_null(nv);
  open_handle = nv;
  return nv;
}

/* How often the fake saw a call, through its own fake_nvml_calls(). */
static unsigned long fake_calls(const char *fn) {
  void *h = dlopen(fake_path(), RTLD_NOW | RTLD_NOLOAD);
  assert_non_null(h);
  unsigned long (*calls)(const char *) = (unsigned long (*)(const char *))dlsym(h, "fake_nvml_calls");
  assert_non_null(calls);
  unsigned long n = calls(fn);
  dlclose(h);
  return n;
}

static void sample_ok(struct gw_nvml *nv, unsigned gpu, int64_t t_ns, unsigned what, struct gw_gpu_sample *s,
                      struct support_events *ev) {
  struct gw_event_sink sink = {support_events_add, ev};
  gw_status st = gw_nvml_sample(nv, gpu, t_ns, what, s, &sink);
  assert_int_equal(st, GW_OK);
  assert_int_equal(s->gpu, gpu);
  assert_true(s->t_ns == t_ns);
}

/* The fake opened for a test that samples it: the events its samples
 * raised, and the last sample. */
struct fake_gpu {
  struct gw_nvml *nv;
  struct support_events ev;
  struct gw_gpu_sample s;
};

static void fake_gpu_open(struct fake_gpu *g) {
  memset(g, 0, sizeof *g);
  g->nv = open_fake();
}

/* GPU gpu's sample of the given tiers at t_ns, into g->s; it must succeed. */
static void sample(struct fake_gpu *g, unsigned gpu, int64_t t_ns, unsigned what) {
  sample_ok(g->nv, gpu, t_ns, what, &g->s, &g->ev);
}

#define V(s, m) ((s)->values[GW_M_##m])
#define VALID(s, m) gw_gpu_valid((s), GW_M_##m)

/* A metric a test expects valid, with its value. */
struct expected_value {
  enum gw_gpu_metric m;
  double value;
};

static void expect_values(const struct gw_gpu_sample *s, const struct expected_value *want, size_t n) {
  for (size_t i = 0; i < n; i++) {
    enum gw_gpu_metric m = want[i].m;
    if (!gw_gpu_valid(s, m) || s->values[m] != want[i].value)
      fail_msg("%s: %s %g, expected %g", gw_gpu_metric_info[m].id, gw_gpu_valid(s, m) ? "valid" : "not valid",
               s->values[m], want[i].value);
  }
}

static uint64_t bit(enum gw_gpu_metric m) {
  return (uint64_t)1 << m;
}

/* What the sampler reads from GPM (graphics activity no longer: dear). */
static const enum gw_gpu_metric gpm_metrics[] = {GW_M_sm_active_pct, GW_M_sm_occupancy_pct, GW_M_tensor_active_pct,
                                                 GW_M_dram_bw_pct,   GW_M_fp32_active_pct,  GW_M_fp16_active_pct};

static uint64_t gpm_mask(void) {
  uint64_t m = 0;
  for (size_t i = 0; i < sizeof gpm_metrics / sizeof gpm_metrics[0]; i++)
    m |= bit(gpm_metrics[i]);
  return m;
}

/* ---- opening ---- */

/* gw_nvml_open(lib) says GW_ENOTSUP and sets the handle, which starts as
 * something else, to NULL; the message is in err. */
static void open_refused(const char *lib, struct gw_err *err) {
  static int not_a_handle;
  struct gw_nvml *nv = (struct gw_nvml *)(void *)&not_a_handle;
  assert_int_equal(gw_nvml_open(&nv, lib, err), GW_ENOTSUP);
  assert_null(nv);
}

/* Libraries that are no working NVML, each refused with its reason. */
static void test_open_refused(void **state) {
  (void)state;
  static const char FAKE[] = "(the fake)";
  static const struct {
    const char *lib;          /* FAKE: the fake NVML; NULL: $GPUWHY_NVML_LIB */
    const char *knob, *value; /* an environment variable set for the case */
    const char *want[2];      /* in the message */
  } cases[] = {
      {"/nonexistent/libnvidia-ml.so.1", NULL, NULL, {"no NVIDIA driver", "/nonexistent/libnvidia-ml.so.1 not found"}},
      /* $GPUWHY_NVML_LIB is used when no path is given */
      {NULL, "GPUWHY_NVML_LIB", "/nonexistent/from-env.so", {"from-env.so"}},
      /* libc loads fine but has none of the NVML symbols */
      {"libc.so.6", NULL, NULL, {"nvmlErrorString"}},
      {FAKE, "FAKE_NVML_INIT_FAIL", "1", {"Driver Not Loaded"}},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    if (cases[i].knob)
      setenv(cases[i].knob, cases[i].value, 1);
    struct gw_err err = {{0}};
    open_refused(cases[i].lib == FAKE ? fake_path() : cases[i].lib, &err);
    for (int w = 0; w < 2 && cases[i].want[w]; w++)
      if (!strstr(err.msg, cases[i].want[w]))
        fail_msg("case %zu: \"%s\" lacks \"%s\"", i, err.msg, cases[i].want[w]);
    if (cases[i].knob)
      unsetenv(cases[i].knob);
  }
}

static void test_open_named_by_environment(void **state) {
  (void)state;
  setenv("GPUWHY_NVML_LIB", fake_path(), 1);
  struct gw_nvml *nv = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_nvml_open(&nv, NULL, &err), GW_OK);
  assert_int_equal(gw_nvml_gpu_count(nv), 1);
  close_fake(nv);
}

static void test_no_gpu(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "0", 1);
  struct gw_err err = {{0}};
  open_refused(fake_path(), &err);
  assert_string_equal(err.msg, "NVIDIA driver loaded but no GPU found");
  /* Re-init after shutdown re-reads the knobs. */
  setenv("FAKE_NVML_GPUS", "3", 1);
  struct gw_nvml *nv = open_fake();
  assert_int_equal(gw_nvml_gpu_count(nv), 3);
  close_fake(nv);
}

/* ---- static facts ---- */

static void test_driver_and_gpu_info(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "2", 1);
  struct gw_nvml *nv = open_fake();
  assert_int_equal(gw_nvml_gpu_count(nv), 2);

  struct gw_driver_info d;
  gw_nvml_driver_info(nv, &d);
  assert_string_equal(d.driver_version, "580.159.04");
  assert_string_equal(d.nvml_version, "13.580.159.04");
  assert_int_equal(d.cuda_driver_version, 13000);

  struct gw_gpu_info info;
  struct gw_err err = {{0}};
  assert_int_equal(gw_nvml_gpu_info(nv, 1, &info, &err), GW_OK);
  assert_int_equal(info.index, 1);
  assert_string_equal(info.uuid, "GPU-fa4e0000-0000-4000-8000-000000000001");
  assert_string_equal(info.name, "NVIDIA H200 (fake)");
  assert_string_equal(info.pci_bus_id, "00000000:19:00.0");
  assert_true(info.mem_total_bytes == 143771ULL * 1024 * 1024);
  assert_int_equal(info.power_default_limit_mw, 700000);
  assert_int_equal(info.power_min_limit_mw, 200000);
  assert_int_equal(info.power_max_limit_mw, 700000);
  assert_int_equal(info.sm_clock_max_mhz, 1980);
  assert_int_equal(info.mem_clock_max_mhz, 3201);
  assert_int_equal(info.pcie_gen_max, 5); /* the GPU's maximum, not the slot's (4 in the fake) */
  assert_int_equal(info.pcie_width_max, 16);
  assert_int_equal(info.temp_slowdown_c, 89);
  assert_int_equal(info.temp_shutdown_c, 95);
  assert_int_equal(info.windowed_supported, 1);
  assert_int_equal(info.mig_enabled, 0);
  assert_int_equal(info.persistence_mode, 1);
  assert_int_equal(info.compute_mode, 0);
  assert_int_equal(info.ecc_enabled, 1);
  assert_true(info.supported_clock_reasons == 0x1ff);

  assert_int_equal(gw_nvml_gpu_info(nv, 2, &info, &err), GW_ERR);
  assert_non_null(strstr(err.msg, "out of range"));
  close_fake(nv);
}

static void test_info_fallbacks_and_unknowns(void **state) {
  (void)state;
  setenv("FAKE_NVML_NOT_SUPPORTED",
         "nvmlDeviceGetGpuMaxPcieLinkGeneration,"
         "nvmlDeviceGetSupportedClocksEventReasons,nvmlDeviceGetMigMode,"
         "nvmlDeviceGetTemperatureThreshold,nvmlDeviceGetMemoryInfo_v2",
         1);
  struct gw_nvml *nv = open_fake();
  struct gw_gpu_info info;
  struct gw_err err = {{0}};
  assert_int_equal(gw_nvml_gpu_info(nv, 0, &info, &err), GW_OK);
  assert_int_equal(info.pcie_gen_max, 4);                       /* fell back to the system maximum */
  assert_true(info.supported_clock_reasons == 0x1ff);           /* through the Throttle spelling */
  assert_true(info.mem_total_bytes == 143771ULL * 1024 * 1024); /* through MemoryInfo v1 */
  assert_int_equal(info.mig_enabled, -1);
  assert_int_equal(info.temp_slowdown_c, -1);
  assert_int_equal(info.temp_shutdown_c, -1);
  close_fake(nv);
}

/* ---- sampling ---- */

static void test_fast_and_slow_values(void **state) {
  (void)state;
  struct fake_gpu g;
  fake_gpu_open(&g);
  sample(&g, 0, T0, GW_NVML_FAST | GW_NVML_SLOW | GW_NVML_RARE);

  /* FAST, non-GPM */
  assert_true(VALID(&g.s, util_gpu_pct) && VALID(&g.s, util_mem_pct));
  static const struct expected_value fast[] = {
      {GW_M_mem_used_bytes, 20 * GIB}, /* v2: reserved not counted */
      {GW_M_power_mw, 401000},         {GW_M_energy_mj, 1000040000.0}, {GW_M_pstate, 0},
      {GW_M_sm_clock_mhz, 1755},       {GW_M_mem_clock_mhz, 3201},     {GW_M_clock_reasons, 0},
  };
  expect_values(&g.s, fast, sizeof fast / sizeof fast[0]);
  /* GPM needs two samples 100 ms apart: nothing yet, and no PCIe fallback on a
   * GPM GPU. */
  assert_true((g.s.valid & gpm_mask()) == 0);
  assert_false(VALID(&g.s, pcie_rx_bps) || VALID(&g.s, pcie_tx_bps) || VALID(&g.s, nvlink_rx_bps));

  /* SLOW */
  static const struct expected_value slow[] = {
      {GW_M_power_limit_mw, 700000},   {GW_M_temp_gpu_c, 45},
      {GW_M_temp_mem_c, 52},           {GW_M_pcie_gen, 5},
      {GW_M_pcie_width, 16},           {GW_M_pcie_replay, 0},
      {GW_M_viol_power_cap_ns, 1.5e9}, {GW_M_viol_sync_boost_ns, 0},
      {GW_M_viol_sw_thermal_ns, 2e6},  {GW_M_ecc_sbe_volatile, 3},
      {GW_M_ecc_dbe_volatile, 0},      {GW_M_remapped_cor, 1},
  };
  expect_values(&g.s, slow, sizeof slow / sizeof slow[0]);
  assert_true(VALID(&g.s, viol_hw_thermal_ns) && VALID(&g.s, viol_hw_power_brake_ns));
  assert_true(VALID(&g.s, remapped_unc) && VALID(&g.s, remapped_pending) && VALID(&g.s, remapped_failure));
  assert_int_equal(g.ev.n, 0);

  /* FAST only (a tick between seconds): utilization alone; no clocks,
   * reasons or power (read once a second) and no SLOW metric. */
  unsigned long reasons_calls = fake_calls("nvmlDeviceGetCurrentClocksEventReasons");
  sample(&g, 0, T0 + 100 * MS, GW_NVML_FAST);
  assert_true(VALID(&g.s, util_gpu_pct) && VALID(&g.s, util_mem_pct));
  assert_false(VALID(&g.s, sm_clock_mhz) || VALID(&g.s, clock_reasons) || VALID(&g.s, mem_clock_mhz));
  assert_int_equal(fake_calls("nvmlDeviceGetCurrentClocksEventReasons"), reasons_calls);
  assert_false(VALID(&g.s, power_mw) || VALID(&g.s, pstate) || VALID(&g.s, mem_used_bytes));
  assert_false(VALID(&g.s, power_limit_mw) || VALID(&g.s, temp_gpu_c) || VALID(&g.s, ecc_sbe_volatile));
  /* FAST and SLOW: power again, rising with the fake's counter. */
  sample(&g, 0, T0 + 150 * MS, GW_NVML_FAST | GW_NVML_SLOW);
  assert_true(V(&g.s, power_mw) == 402000);
  /* SLOW only: no FAST metric, and no extra power reading. */
  sample(&g, 0, T0 + 200 * MS, GW_NVML_SLOW);
  assert_false(VALID(&g.s, power_mw) || VALID(&g.s, util_gpu_pct) || VALID(&g.s, mem_used_bytes));
  assert_true(VALID(&g.s, power_limit_mw));
  assert_int_equal(fake_calls("nvmlDeviceGetPowerUsage"), 2);
  /* One field-values call per SLOW tick, plus one for the dear HW slowdown
   * counters on the RARE tick. */
  assert_int_equal(fake_calls("nvmlDeviceGetFieldValues"), 4);
  assert_false(VALID(&g.s, viol_hw_thermal_ns) || VALID(&g.s, energy_mj));

  struct gw_event_sink sink = {support_events_add, &g.ev};
  assert_int_equal(gw_nvml_sample(g.nv, 5, T0, GW_NVML_FAST, &g.s, &sink), GW_ERR);
  close_fake(g.nv);
}

static void check_util_averages(void) {
  struct fake_gpu g;
  fake_gpu_open(&g);
  /* First call: only the newest buffered sample (GPU 80, memory 40). */
  sample(&g, 0, T0, GW_NVML_FAST);
  assert_true(VALID(&g.s, util_gpu_pct) && V(&g.s, util_gpu_pct) == 80);
  assert_true(VALID(&g.s, util_mem_pct) && V(&g.s, util_mem_pct) == 40);
  /* A second later: the average of the samples since the last one seen,
   * (60 + 80) / 2. */
  sample(&g, 0, T0 + 1000 * MS, GW_NVML_FAST);
  assert_true(V(&g.s, util_gpu_pct) == 70);
  assert_true(V(&g.s, util_mem_pct) == 35);
  assert_int_equal(fake_calls("nvmlDeviceGetUtilizationRates"), 0);
  /* 100 ms later a point read sees the driver's latest window (rates 55 / 25)
   * without the dear buffered call. */
  int samples_calls = fake_calls("nvmlDeviceGetSamples");
  sample(&g, 0, T0 + 1100 * MS, GW_NVML_FAST);
  assert_true(V(&g.s, util_gpu_pct) == 55);
  assert_true(V(&g.s, util_mem_pct) == 25);
  assert_int_equal(fake_calls("nvmlDeviceGetSamples"), samples_calls);
  close_fake(g.nv);
}

static void test_util_from_buffered_samples(void **state) {
  (void)state;
  check_util_averages();
  /* Same numbers when the driver hands the values back as doubles. */
  setenv("FAKE_NVML_SAMPLES_DOUBLE", "1", 1);
  check_util_averages();
}

static void test_util_falls_back_to_rates(void **state) {
  (void)state;
  setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetSamples", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  for (int tick = 0; tick < 3; tick++) {
    sample(&g, 0, T0 + tick * 100 * MS, GW_NVML_FAST);
    assert_true(VALID(&g.s, util_gpu_pct) && V(&g.s, util_gpu_pct) == 55);
    assert_true(VALID(&g.s, util_mem_pct) && V(&g.s, util_mem_pct) == 25);
  }
  /* One NOT_SUPPORTED per sample type, then never asked again. */
  assert_int_equal(fake_calls("nvmlDeviceGetSamples"), 2);
  close_fake(g.nv);
}

/* Valid mask of a FAST|SLOW tick (second tick, GPM window ready) with the
 * given functions unsupported. */
static uint64_t valid_mask_with(const char *unsupported, struct gw_gpu_sample *last) {
  if (unsupported)
    setenv("FAKE_NVML_NOT_SUPPORTED", unsupported, 1);
  else
    unsetenv("FAKE_NVML_NOT_SUPPORTED");
  struct fake_gpu g;
  fake_gpu_open(&g);
  const unsigned all_tiers = GW_NVML_FAST | GW_NVML_SLOW | GW_NVML_RARE;
  sample(&g, 0, T0, all_tiers);
  sample(&g, 0, T0 + 150 * MS, all_tiers);
  uint64_t second = g.s.valid;
  /* The third tick must agree: an unsupported metric stays invalid. */
  sample(&g, 0, T0 + 300 * MS, all_tiers);
  assert_true(g.s.valid == second);
  if (last)
    *last = g.s;
  close_fake(g.nv);
  return second;
}

static void test_not_supported_leaves_exactly_its_metric(void **state) {
  (void)state;
  uint64_t all = valid_mask_with(NULL, NULL);
  /* Everything but NVLink (the fake has no links) and graphics activity (not
   * read) is valid on the second tick. */
  uint64_t expected = 0;
  for (int m = 0; m < GW_GPU_NMETRICS; m++)
    expected |= (uint64_t)1 << m;
  expected &= ~(bit(GW_M_nvlink_rx_bps) | bit(GW_M_nvlink_tx_bps) | bit(GW_M_gr_active_pct));
  assert_true(all == expected);

  assert_true(valid_mask_with("nvmlDeviceGetPowerUsage", NULL) == (all & ~bit(GW_M_power_mw)));

  assert_true(valid_mask_with("nvmlDeviceGetTotalEnergyConsumption", NULL) == (all & ~bit(GW_M_energy_mj)));
  assert_true(valid_mask_with("nvmlDeviceGetEnforcedPowerLimit", NULL) == (all & ~bit(GW_M_power_limit_mw)));
  assert_true(valid_mask_with("nvmlDeviceGetPcieReplayCounter", NULL) == (all & ~bit(GW_M_pcie_replay)));
  assert_true(valid_mask_with("nvmlDeviceGetRemappedRows", NULL) ==
              (all & ~(bit(GW_M_remapped_cor) | bit(GW_M_remapped_unc) | bit(GW_M_remapped_pending) |
                       bit(GW_M_remapped_failure))));
  assert_true(
      valid_mask_with("nvmlDeviceGetFieldValues", NULL) ==
      (all & ~(bit(GW_M_temp_mem_c) | bit(GW_M_viol_power_cap_ns) | bit(GW_M_viol_sync_boost_ns) |
               bit(GW_M_viol_sw_thermal_ns) | bit(GW_M_viol_hw_thermal_ns) | bit(GW_M_viol_hw_power_brake_ns))));
  /* Fallbacks keep the metric: TemperatureV -> Temperature, v2 -> v1 memory,
   * Event -> Throttle reasons. */
  struct gw_gpu_sample s;
  assert_true(valid_mask_with("nvmlDeviceGetTemperatureV", &s) == all);
  assert_true(V(&s, temp_gpu_c) == 45);
  assert_true(valid_mask_with("nvmlDeviceGetMemoryInfo_v2", &s) == all);
  assert_true(V(&s, mem_used_bytes) == 20 * GIB + 512 * MIB); /* v1 counts reserved memory as used */
  assert_true(valid_mask_with("nvmlDeviceGetCurrentClocksEventReasons", &s) == all);
  assert_true(valid_mask_with("nvmlDeviceGetTemperatureV,nvmlDeviceGetTemperature", NULL) ==
              (all & ~bit(GW_M_temp_gpu_c)));
}

static void test_not_supported_is_not_asked_again(void **state) {
  (void)state;
  setenv("FAKE_NVML_NOT_SUPPORTED", "nvmlDeviceGetPowerUsage,nvmlDeviceGetCurrPcieLinkWidth", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  for (int tick = 0; tick < 5; tick++) {
    sample(&g, 0, T0 + tick * 100 * MS, GW_NVML_FAST | GW_NVML_SLOW | GW_NVML_RARE);
    assert_false(VALID(&g.s, power_mw));
    assert_false(VALID(&g.s, pcie_width));
    assert_true(VALID(&g.s, pcie_gen));
    assert_true(VALID(&g.s, energy_mj));
  }
  assert_int_equal(fake_calls("nvmlDeviceGetPowerUsage"), 1);
  assert_int_equal(fake_calls("nvmlDeviceGetCurrPcieLinkWidth"), 1);
  assert_int_equal(fake_calls("nvmlDeviceGetTotalEnergyConsumption"), 5);
  close_fake(g.nv);
}

static void test_transient_error_is_one_tick(void **state) {
  (void)state;
  setenv("FAKE_NVML_FAIL_ONCE", "nvmlDeviceGetPowerUsage,nvmlDeviceGetTemperatureV", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  sample(&g, 0, T0, GW_NVML_FAST | GW_NVML_SLOW | GW_NVML_RARE);
  assert_false(VALID(&g.s, power_mw));
  assert_false(VALID(&g.s, temp_gpu_c)); /* no fallback to the old call on a passing error */
  assert_true(VALID(&g.s, energy_mj));
  sample(&g, 0, T0 + 100 * MS, GW_NVML_FAST | GW_NVML_SLOW);
  assert_true(VALID(&g.s, power_mw));
  assert_true(VALID(&g.s, temp_gpu_c));
  assert_int_equal(fake_calls("nvmlDeviceGetPowerUsage"), 2);
  assert_int_equal(fake_calls("nvmlDeviceGetTemperature"), 0);
  close_fake(g.nv);
}

/* ---- GPM ---- */

static void test_gpm_window(void **state) {
  (void)state;
  struct fake_gpu g;
  fake_gpu_open(&g);

  /* Default window 100 ms. A at 0 ms: the first sample, no window yet. */
  sample(&g, 0, T0, GW_NVML_FAST);
  assert_true((g.s.valid & gpm_mask()) == 0);
  /* 60 ms: the window is not over, so no GPM call at all. */
  sample(&g, 0, T0 + 60 * MS, GW_NVML_FAST);
  assert_true((g.s.valid & gpm_mask()) == 0);
  assert_false(VALID(&g.s, pcie_rx_bps));
  assert_int_equal(fake_calls("nvmlGpmSampleGet"), 1);
  assert_int_equal(fake_calls("nvmlGpmMetricsGet"), 0);
  /* B at 120 ms closes the window A..B: one sample apart (d = 1). */
  sample(&g, 0, T0 + 120 * MS, GW_NVML_FAST);
  assert_true((g.s.valid & gpm_mask()) == gpm_mask());
  assert_true(V(&g.s, sm_active_pct) == 10);
  assert_false(VALID(&g.s, gr_active_pct));
  assert_true(V(&g.s, tensor_active_pct) == 8);
  assert_true(V(&g.s, sm_occupancy_pct) == 12.5);
  assert_true(V(&g.s, dram_bw_pct) == 17.25);
  assert_true(V(&g.s, fp32_active_pct) == 3);
  assert_true(V(&g.s, fp16_active_pct) == 1.5);
  /* PCIe from GPM (MiB/s), not from PcieThroughput. */
  assert_true(VALID(&g.s, pcie_tx_bps) && V(&g.s, pcie_tx_bps) == 100 * MIB);
  assert_true(VALID(&g.s, pcie_rx_bps) && V(&g.s, pcie_rx_bps) == 2000 * MIB);
  /* NVLink metrics said NOT_SUPPORTED inside a successful call. */
  assert_false(VALID(&g.s, nvlink_rx_bps) || VALID(&g.s, nvlink_tx_bps));
  /* Never closer than 100 ms, which GPM needs: 210 ms is too early. */
  sample(&g, 0, T0 + 210 * MS, GW_NVML_FAST);
  assert_true((g.s.valid & gpm_mask()) == 0);
  sample(&g, 0, T0 + 230 * MS, GW_NVML_FAST);
  assert_true(VALID(&g.s, sm_active_pct) && V(&g.s, sm_active_pct) == 10);
  assert_int_equal(fake_calls("nvmlGpmMetricsGet"), 2);

  /* A 500 ms window: ticks in between make no GPM call; a tick a little
   * early (scheduling) still closes the window. */
  gw_nvml_set_gpm_window_ms(g.nv, 500);
  for (int tick = 1; tick <= 3; tick++) {
    sample(&g, 0, T0 + 230 * MS + tick * 100 * MS, GW_NVML_FAST);
    assert_true((g.s.valid & gpm_mask()) == 0);
  }
  sample(&g, 0, T0 + 715 * MS, GW_NVML_FAST);
  assert_true(VALID(&g.s, sm_active_pct) && V(&g.s, sm_active_pct) == 10);
  assert_int_equal(fake_calls("nvmlGpmMetricsGet"), 3);
  assert_int_equal(fake_calls("nvmlGpmSampleGet"), 4);
  assert_int_equal(fake_calls("nvmlDeviceGetPcieThroughput"), 0);
  close_fake(g.nv);
}

static void test_no_gpm(void **state) {
  (void)state;
  setenv("FAKE_NVML_NO_GPM", "1", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  struct gw_gpu_info info;
  struct gw_err err = {{0}};
  assert_int_equal(gw_nvml_gpu_info(g.nv, 0, &info, &err), GW_OK);
  assert_int_equal(info.windowed_supported, 0);
  for (int tick = 0; tick < 4; tick++) {
    /* Without GPM, PCIe comes from the blocking PcieThroughput call, once a
     * second with the SLOW metrics. */
    sample(&g, 0, T0 + tick * 150 * MS, GW_NVML_FAST | GW_NVML_SLOW);
    assert_true((g.s.valid & gpm_mask()) == 0);
    /* KB/s from PcieThroughput, 1024 bytes each. */
    assert_true(VALID(&g.s, pcie_tx_bps) && V(&g.s, pcie_tx_bps) == 1000 * 1024.0);
    assert_true(VALID(&g.s, pcie_rx_bps) && V(&g.s, pcie_rx_bps) == 250000 * 1024.0);
  }
  assert_int_equal(fake_calls("nvmlGpmSampleGet"), 0);
  assert_int_equal(fake_calls("nvmlGpmMetricsGet"), 0);
  close_fake(g.nv);
}

/* ---- GPU lost ---- */

static void test_gpu_lost(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "2", 1);
  setenv("FAKE_NVML_LOST_AFTER", "2", 1);
  setenv("FAKE_NVML_LOST_GPU", "0", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  struct gw_event_sink sink = {support_events_add, &g.ev};
  for (int tick = 0; tick < 2; tick++) {
    sample(&g, 0, T0 + tick * 100 * MS, GW_NVML_FAST | GW_NVML_SLOW);
    sample(&g, 1, T0 + tick * 100 * MS, GW_NVML_FAST | GW_NVML_SLOW);
  }
  assert_int_equal(g.ev.n, 0);

  assert_int_equal(gw_nvml_sample(g.nv, 0, T0 + 200 * MS, GW_NVML_FAST | GW_NVML_SLOW, &g.s, &sink), GW_ELOST);
  assert_true(g.s.valid == 0);
  assert_int_equal(g.ev.n, 1);
  assert_string_equal(g.ev.ev[0].kind, "gpu_lost");
  assert_int_equal(g.ev.ev[0].gpu, 0);
  assert_true(g.ev.ev[0].t_ns == T0 + 200 * MS);
  assert_non_null(strstr(g.ev.ev[0].message, "00000000:18:00.0"));
  assert_non_null(strstr(g.ev.ev[0].message, "lost"));

  /* The other GPU carries on. */
  sample(&g, 1, T0 + 200 * MS, GW_NVML_FAST | GW_NVML_SLOW);
  assert_true(VALID(&g.s, power_mw));

  /* Later calls: GW_ELOST at once, no second event, no NVML call. */
  unsigned long power_calls = fake_calls("nvmlDeviceGetPowerUsage");
  unsigned long get_samples = fake_calls("nvmlDeviceGetSamples");
  for (int tick = 3; tick < 6; tick++)
    assert_int_equal(gw_nvml_sample(g.nv, 0, T0 + tick * 100 * MS, GW_NVML_FAST | GW_NVML_SLOW, &g.s, &sink), GW_ELOST);
  assert_int_equal(g.ev.n, 1);
  assert_int_equal(fake_calls("nvmlDeviceGetPowerUsage"), power_calls);
  assert_int_equal(fake_calls("nvmlDeviceGetSamples"), get_samples);

  struct gw_gpu_proc procs[4];
  assert_int_equal(gw_nvml_processes(g.nv, 0, T0, procs, 4), -1);
  struct gw_gpu_info info;
  struct gw_err err = {{0}};
  assert_int_equal(gw_nvml_gpu_info(g.nv, 0, &info, &err), GW_ELOST);
  assert_non_null(strstr(err.msg, "lost"));
  close_fake(g.nv);
}

/* ---- clock reasons ---- */

static void test_clock_reason_events(void **state) {
  (void)state;
  setenv("FAKE_NVML_REASONS", "0x1,0x1,0x4,0x4,0x84,0", 1);
  struct fake_gpu g;
  fake_gpu_open(&g);
  const double expect[] = {1, 1, 4, 4, 0x84, 0};
  for (int tick = 0; tick < 6; tick++) {
    sample(&g, 0, T0 + tick * 100 * MS, GW_NVML_FAST | GW_NVML_SLOW);
    assert_true(VALID(&g.s, clock_reasons) && V(&g.s, clock_reasons) == expect[tick]);
  }
  /* No event for the first reading, one per change after it. */
  assert_int_equal(g.ev.n, 3);
  assert_string_equal(g.ev.ev[0].kind, "clock_reasons");
  assert_int_equal(g.ev.ev[0].code, 0x4);
  assert_int_equal(g.ev.ev[0].gpu, 0);
  assert_true(g.ev.ev[0].t_ns == T0 + 200 * MS);
  assert_non_null(strstr(g.ev.ev[0].message, "SW power cap"));
  assert_non_null(strstr(g.ev.ev[0].message, "GPU idle")); /* what it was */
  assert_int_equal(g.ev.ev[1].code, 0x84);
  assert_non_null(strstr(g.ev.ev[1].message, "SW power cap, HW power brake"));
  assert_int_equal(g.ev.ev[2].code, 0);
  assert_non_null(strstr(g.ev.ev[2].message, "none"));
  close_fake(g.nv);
}

/* ---- processes ---- */

static void test_processes(void **state) {
  (void)state;
  setenv("FAKE_NVML_GPUS", "2", 1);
  struct gw_nvml *nv = open_fake();
  struct gw_gpu_proc p[8];
  /* pid 4342 is both a compute and a graphics process: listed once. */
  assert_int_equal(gw_nvml_processes(nv, 1, T0, p, 8), 2);
  assert_int_equal(p[0].pid, 4342);
  assert_int_equal(p[0].gpu, 1);
  assert_true(p[0].t_ns == T0);
  assert_true(p[0].used_mem_bytes == (int64_t)(8 * GIB));
  assert_true(p[0].sm_pct == 37);
  assert_int_equal(p[1].pid, 4343);
  assert_true(p[1].used_mem_bytes == (int64_t)(2 * GIB));
  assert_true(p[1].sm_pct == -1); /* its only sample said 250 %: junk */
  /* No new utilization samples since: SM share unknown. */
  assert_int_equal(gw_nvml_processes(nv, 1, T0 + 1000 * MS, p, 8), 2);
  assert_true(p[0].sm_pct == -1);
  /* Room for one. */
  assert_int_equal(gw_nvml_processes(nv, 0, T0, p, 1), 1);
  assert_int_equal(p[0].pid, 4242);
  assert_int_equal(gw_nvml_processes(nv, 7, T0, p, 8), -1);
  close_fake(nv);

  setenv("FAKE_NVML_NOT_SUPPORTED",
         "nvmlDeviceGetProcessUtilization,"
         "nvmlDeviceGetGraphicsRunningProcesses_v3",
         1);
  nv = open_fake();
  assert_int_equal(gw_nvml_processes(nv, 0, T0, p, 8), 2);
  assert_true(p[0].sm_pct == -1 && p[1].sm_pct == -1);
  close_fake(nv);

  setenv("FAKE_NVML_NOT_SUPPORTED",
         "nvmlDeviceGetComputeRunningProcesses_v3,"
         "nvmlDeviceGetGraphicsRunningProcesses_v3",
         1);
  nv = open_fake();
  assert_int_equal(gw_nvml_processes(nv, 0, T0, p, 8), -1);
  close_fake(nv);
}

int main(void) {
  if (!getenv("GW_FAKE_NVML")) {
    fprintf(stderr, "GW_FAKE_NVML is not set: run through ctest\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test_setup_teardown(test_open_refused, setup, teardown),
      cmocka_unit_test_setup_teardown(test_open_named_by_environment, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_gpu, setup, teardown),
      cmocka_unit_test_setup_teardown(test_driver_and_gpu_info, setup, teardown),
      cmocka_unit_test_setup_teardown(test_info_fallbacks_and_unknowns, setup, teardown),
      cmocka_unit_test_setup_teardown(test_fast_and_slow_values, setup, teardown),
      cmocka_unit_test_setup_teardown(test_util_from_buffered_samples, setup, teardown),
      cmocka_unit_test_setup_teardown(test_util_falls_back_to_rates, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_supported_leaves_exactly_its_metric, setup, teardown),
      cmocka_unit_test_setup_teardown(test_not_supported_is_not_asked_again, setup, teardown),
      cmocka_unit_test_setup_teardown(test_transient_error_is_one_tick, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gpm_window, setup, teardown),
      cmocka_unit_test_setup_teardown(test_no_gpm, setup, teardown),
      cmocka_unit_test_setup_teardown(test_gpu_lost, setup, teardown),
      cmocka_unit_test_setup_teardown(test_clock_reason_events, setup, teardown),
      cmocka_unit_test_setup_teardown(test_processes, setup, teardown),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
