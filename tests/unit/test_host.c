/* Host source tests: the pure parsers on real /proc text, then the sampler on
 * fixture trees (tests/fixtures/proc/, see the README there) stepped through
 * time t0 -> t1 -> t2 by re-pointing a symlink, then once on the live system.
 * Expected figures are worked out by hand from the fixture files. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
/* cmocka.h needs the four headers above first. */
#include <cmocka.h>

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/util.h"
#include "sources/host.h"
#include "support_event_capture.h"

#define EPS 1e-9
#define T0_NS ((int64_t)1700000000 * 1000000000LL)

static const char *fixtures(void) {
  return getenv("GW_FIXTURES");
}

/* Read a fixture file into a static buffer. */
static const char *fixture_text(const char *rel) {
  static char buf[65536];
  char path[1024];
  snprintf(path, sizeof path, "%s/proc/%s", fixtures(), rel);
  long n = gw_read_file_at("", path, buf, sizeof buf, NULL);
  assert_true(n > 0);
  return buf;
}

/* A root whose content is switched between time steps: tmp/root -> fixture. */
struct stepper {
  char dir[256];
  char root[300];
};

static void stepper_init(struct stepper *s) {
  snprintf(s->dir, sizeof s->dir, "/tmp/gw_host_test_XXXXXX");
  assert_non_null(mkdtemp(s->dir));
  snprintf(s->root, sizeof s->root, "%s/root", s->dir);
}

static void stepper_point(struct stepper *s, const char *tree, const char *step) {
  char target[1024];
  snprintf(target, sizeof target, "%s/proc/%s/%s", fixtures(), tree, step);
  unlink(s->root);
  assert_int_equal(symlink(target, s->root), 0);
}

static void stepper_done(struct stepper *s) {
  unlink(s->root);
  rmdir(s->dir);
}

static const struct gw_proc_sample *find_proc(const struct gw_host_sample *s, int pid) {
  for (int i = 0; i < s->nprocs; i++)
    if (s->procs[i].pid == pid)
      return &s->procs[i];
  return NULL;
}

static const struct gw_disk_sample *find_disk(const struct gw_host_sample *s, const char *name) {
  for (int i = 0; i < s->ndisks; i++)
    if (strcmp(s->disks[i].name, name) == 0)
      return &s->disks[i];
  return NULL;
}

static int has_bit(const struct gw_host_sample *s, enum gw_host_field f) {
  return (s->valid >> f) & 1;
}

/* ---- parsers ---- */

static void test_parse_proc_stat_real(void **state) {
  (void)state;
  struct gw_cpu_ticks total, cores[8];
  struct gw_err err = {{0}};
  /* "cpu  2611 0 1929 94734 310 0 23 9 0 0" captured on the dev VM */
  int n = gw_parse_proc_stat(fixture_text("train_tree/t0/proc/stat"), &total, cores, 8, &err);
  assert_int_equal(n, 2);
  assert_string_equal(err.msg, "");
  const struct gw_cpu_ticks want = {
      .user = 2611, .system = 1929, .idle = 94734, .iowait = 310, .softirq = 23, .steal = 9};
  assert_memory_equal(&total, &want, sizeof want); /* nice and irq 0 */
  assert_int_equal(cores[1].user, 1316);
  assert_int_equal(cores[1].iowait, 291);
}

static void test_parse_proc_stat_offline_core_and_errors(void **state) {
  (void)state;
  struct gw_cpu_ticks total, cores[4];
  struct gw_err err = {{0}};
  /* cpu1 offline: no line; the slot is zeroed and numbering kept. */
  const char *gap = "cpu  30 0 30 300 0 0 0 0 0 0\ncpu0 10 0 10 100 0 0 0 0 0 0\n"
                    "cpu2 20 0 20 200 0 0 0 0 0 0\nintr 1 2 3\n";
  memset(cores, 0xff, sizeof cores);
  assert_int_equal(gw_parse_proc_stat(gap, &total, cores, 4, &err), 3);
  assert_int_equal(cores[1].user, 0);
  assert_int_equal(cores[1].idle, 0);
  assert_int_equal(cores[2].idle, 200);
  /* More cores than room: the count says so, nothing is written past max. */
  assert_int_equal(gw_parse_proc_stat(gap, &total, cores, 1, &err), 3);
  /* No total line is an error. */
  assert_int_equal(gw_parse_proc_stat("cpu0 1 2 3 4 5 6 7 8\n", &total, cores, 4, &err), -1);
  assert_non_null(strstr(err.msg, "'cpu' total"));
  assert_int_equal(gw_parse_proc_stat("", &total, cores, 4, &err), -1);
  assert_int_equal(gw_parse_proc_stat("cpu  1 2 x 4 5 6 7 8\n", &total, cores, 4, &err), -1);
  assert_non_null(strstr(err.msg, "line 1"));
  /* A read cut inside cpu1: the total and cpu0 survive, cpu1 is dropped. */
  int n = gw_parse_proc_stat(fixture_text("malformed/t0/proc/stat"), &total, cores, 4, &err);
  assert_int_equal(n, 1);
  assert_int_equal(total.user, 2611);
  assert_non_null(strstr(err.msg, "line 3"));
  /* Too few counters on a core line. */
  n = gw_parse_proc_stat("cpu  1 2 3 4 5 6 7 8\ncpu0 1 2 3\n", &total, cores, 4, &err);
  assert_int_equal(n, 0);
  assert_non_null(strstr(err.msg, "cpu0 needs 8"));
}

/* text parses into want, field by field. */
static void expect_pid_stat(const char *text, const struct gw_pid_stat *want) {
  struct gw_pid_stat st;
  struct gw_err err = {{0}};
  assert_int_equal(gw_parse_pid_stat(text, &st, &err), 0);
  assert_int_equal(st.pid, want->pid);
  assert_int_equal(st.ppid, want->ppid);
  assert_string_equal(st.comm, want->comm);
  assert_int_equal(st.state, want->state);
  assert_int_equal(st.utime_ticks, want->utime_ticks);
  assert_int_equal(st.stime_ticks, want->stime_ticks);
  assert_int_equal(st.num_threads, want->num_threads);
  assert_int_equal(st.starttime_ticks, want->starttime_ticks);
  assert_int_equal(st.rss_pages, want->rss_pages);
}

static void test_parse_pid_stat_real_and_weird_comm(void **state) {
  (void)state;
  struct gw_pid_stat st;
  struct gw_err err = {{0}};
  struct gw_pid_stat want = {.pid = 1000,
                             .ppid = 900,
                             .comm = "python3",
                             .state = 'S',
                             .utime_ticks = 199,
                             .stime_ticks = 1,
                             .num_threads = 3,
                             .rss_pages = 3329,
                             .starttime_ticks = 33505};
  expect_pid_stat(fixture_text("train_tree/t0/proc/1000/stat"), &want);
  /* comm "x) (y z": parsed from the last ')', the rest (the same numbers) lines up. */
  gw_strlcpy(want.comm, "x) (y z", sizeof want.comm);
  expect_pid_stat(fixture_text("malformed/t0/proc/1000/stat"), &want);
  /* Cut after field 13. */
  assert_int_equal(gw_parse_pid_stat(fixture_text("malformed/t0/proc/1001/stat"), &st, &err), -1);
  assert_non_null(strstr(err.msg, "field 14"));
  assert_int_equal(gw_parse_pid_stat("1234 no parens S 1\n", &st, &err), -1);
  assert_int_equal(gw_parse_pid_stat(")( 1 (", &st, &err), -1);
  assert_int_equal(gw_parse_pid_stat("x (a) S 1 1 1 0 -1 0 0 0 0 0 1 1 0 0 20 0 1 0 5 0 1\n", &st, &err), -1);
  assert_non_null(strstr(err.msg, "field 1"));
}

static void test_parse_diskstats(void **state) {
  (void)state;
  struct gw_disk_counters d[8];
  struct gw_err err = {{0}};
  /* loop*, zram0 and the partition vda1 are dropped; vda and sdb stay. */
  int n = gw_parse_diskstats(fixture_text("train_tree/t0/proc/diskstats"), d, 8, &err);
  assert_int_equal(n, 2);
  assert_string_equal(err.msg, "");
  assert_string_equal(d[0].name, "vda");
  assert_string_equal(d[1].name, "sdb");
  /* vda 14362 6017 3012810 10909 2790 5018 394088 1701 0 3928 12918 4506 33
   * 129600 296 285 11: every counter kept (the merges, in-flight count and
   * discarded sectors are not) */
  const struct gw_disk_counters vda = {.rd_ios = 14362,
                                       .rd_sectors = 3012810,
                                       .rd_ticks_ms = 10909,
                                       .wr_ios = 2790,
                                       .wr_sectors = 394088,
                                       .wr_ticks_ms = 1701,
                                       .io_ticks_ms = 3928,
                                       .weighted_ms = 12918,
                                       .dc_ios = 4506,
                                       .dc_ticks_ms = 296};
  assert_memory_equal(&d[0].rd_ios, &vda.rd_ios, sizeof vda - offsetof(struct gw_disk_counters, rd_ios));
  /* A line with three counters is skipped with its line number. */
  n = gw_parse_diskstats(fixture_text("malformed/t0/proc/diskstats"), d, 8, &err);
  assert_int_equal(n, 1);
  assert_non_null(strstr(err.msg, "line 2: sda has 3 counters"));
  /* The kernel's partition naming: a 'p' before the number after a digit. */
  const char *names = "259 0 nvme0n1 1 0 0 0 0 0 0 0 0 0 0\n259 1 nvme0n1p1 1 0 0 0 0 0 0 0 0 "
                      "0 0\n"
                      "253 1 dm-1 1 0 0 0 0 0 0 0 0 0 0\n253 10 dm-10 1 0 0 0 0 0 0 0 0 0 0\n"
                      "9 0 md0 1 0 0 0 0 0 0 0 0 0 0\n8 0 sda 1 0 0 0 0 0 0 0 0 0 0\n"
                      "8 1 sda1 1 0 0 0 0 0 0 0 0 0 0\n1 0 ram0 1 0 0 0 0 0 0 0 0 0 0\n";
  n = gw_parse_diskstats(names, d, 8, &err);
  assert_int_equal(n, 5);
  assert_string_equal(d[0].name, "nvme0n1");
  assert_string_equal(d[1].name, "dm-1");
  assert_string_equal(d[2].name, "dm-10");
  assert_string_equal(d[3].name, "md0");
  assert_string_equal(d[4].name, "sda");
  assert_int_equal(d[0].dc_ios, 0); /* 11 counters: no discard fields */
  /* Capacity respected. */
  assert_int_equal(gw_parse_diskstats(names, d, 2, &err), 2);
}

static void test_parse_psi(void **state) {
  (void)state;
  uint64_t some = 0, full = 0;
  struct gw_err err = {{0}};
  assert_int_equal(gw_parse_psi(fixture_text("train_tree/t1/proc/pressure/memory"), &some, &full, &err), 2);
  assert_int_equal(some, 50000);
  assert_int_equal(full, 20000);
  /* /proc/pressure/cpu before 5.13 has no "full" line. */
  assert_int_equal(gw_parse_psi("some avg10=0.00 avg60=0.00 avg300=0.00 total=42\n", &some, &full, &err), 1);
  assert_int_equal(some, 42);
  assert_int_equal(gw_parse_psi(fixture_text("malformed/t0/proc/pressure/cpu"), &some, &full, &err), -1);
  assert_non_null(strstr(err.msg, "total="));
  assert_int_equal(gw_parse_psi("", &some, &full, &err), -1);
}

/* ---- sampler on the training tree ---- */

/* The sampler over root ("": the live system), following target_pid. */
static struct gw_host *open_host(const char *root, int target_pid) {
  struct gw_host *h = NULL;
  struct gw_err err = {{0}};
  if (gw_host_open(&h, root, &err) != GW_OK)
    fail_msg("%s: %s", root, err.msg);
  gw_host_set_target(h, target_pid);
  return h;
}

static void test_sample_train_tree(void **state) {
  (void)state;
  struct stepper st;
  stepper_init(&st);
  stepper_point(&st, "train_tree", "t0");
  struct gw_err err = {{0}};
  struct support_events ev = {0};
  struct gw_event_sink sink = {support_events_add, &ev};
  struct gw_host_sample s;
  double tck = (double)sysconf(_SC_CLK_TCK);
  int64_t page = (int64_t)sysconf(_SC_PAGESIZE);
  struct gw_host *h = open_host(st.root, 1000);

  /* t0: no rates yet; the first scan finds the tree and emits no events. */
  assert_int_equal(gw_host_sample(h, T0_NS, 1, &s, &sink, &err), GW_OK);
  assert_string_equal(err.msg, "");
  assert_false(has_bit(&s, GW_H_CPU));
  assert_false(has_bit(&s, GW_H_PSI_CPU));
  assert_true(has_bit(&s, GW_H_MEM));
  assert_int_equal(s.mem_total_bytes, 24684096LL * 1024);
  assert_int_equal(s.mem_available_bytes, 23912928LL * 1024);
  assert_int_equal(s.swap_total_bytes, 0);
  assert_true(has_bit(&s, GW_H_LOAD));
  assert_float_equal(s.loadavg_1m, 0.08, EPS);
  assert_int_equal(s.procs_running, 2);
  assert_true(has_bit(&s, GW_H_POWER)); /* AC offline, BAT0 discharging */
  assert_int_equal(s.on_battery, 1);
  assert_string_equal(s.governor, "powersave");
  assert_int_equal(s.ndisks, 0);
  assert_int_equal(s.nprocs, 4); /* 1000, 1001, 1002 and grandchild 1003; not 1500, 1501, 1 */
  assert_int_equal(s.procs[0].pid, 1000);
  assert_int_equal(s.procs[0].role, GW_ROLE_TARGET);
  assert_int_equal(s.procs[0].threads, 3);
  assert_int_equal(s.procs[0].threads_running, 2); /* tasks 1010 and 1011 in R */
  assert_int_equal(s.procs[0].rss_bytes, 3329 * page);
  assert_float_equal(s.procs[0].cpu_pct, -1, EPS);
  assert_float_equal(s.procs[0].launch_threads_cpu_pct, -1, EPS); /* no rate on a first sample */
  const struct gw_proc_sample *grand = find_proc(&s, 1003);
  assert_non_null(grand);
  assert_int_equal(grand->ppid, 1002);
  assert_int_equal(grand->role, GW_ROLE_CHILD);
  assert_int_equal(grand->threads_running, -1);
  assert_string_equal(grand->comm, "decode_helper");
  assert_null(find_proc(&s, 1500));
  assert_null(find_proc(&s, 1501));
  assert_int_equal(ev.n, 0);

  /* t1, one second later, with a rescan: worker 1001 exited, 1004 started. */
  stepper_point(&st, "train_tree", "t1");
  assert_int_equal(gw_host_sample(h, T0_NS + 1000000000LL, 1, &s, &sink, &err), GW_OK);
  assert_string_equal(err.msg, "");
  /* Total over 200 ticks: user 30+10 nice, system 20+5+5, idle 100, iowait 20,
   * steal 10. */
  assert_true(has_bit(&s, GW_H_CPU));
  assert_float_equal(s.total.busy_pct, 40.0, EPS);
  assert_float_equal(s.total.user_pct, 20.0, EPS);
  assert_float_equal(s.total.system_pct, 15.0, EPS);
  assert_float_equal(s.total.iowait_pct, 10.0, EPS);
  assert_float_equal(s.total.steal_pct, 5.0, EPS);
  assert_int_equal(s.total.core, -1);
  assert_int_equal(s.ncores, 2);
  assert_int_equal(s.cores[0].core, 0);
  assert_float_equal(s.cores[0].busy_pct, 50.0, EPS); /* idle 40 + iowait 10 of 100 */
  assert_float_equal(s.cores[0].user_pct, 30.0, EPS);
  assert_int_equal(s.cores[1].core, 1);
  assert_float_equal(s.cores[1].busy_pct, 30.0, EPS); /* idle 60 + iowait 10 of 100 */
  assert_float_equal(s.cores[1].system_pct, 15.0, EPS);
  /* vda: +100 reads, +50 writes, +10 discards, 2048/4096 sectors, 200+100+30
   * ms, io_ticks +250, weighted +500. */
  assert_int_equal(s.ndisks, 1); /* sdb never did I/O, vda1 is a partition */
  const struct gw_disk_sample *vda = find_disk(&s, "vda");
  assert_non_null(vda);
  assert_float_equal(vda->r_per_s, 100.0, EPS);
  assert_float_equal(vda->w_per_s, 50.0, EPS);
  assert_float_equal(vda->read_bps, 1048576.0, EPS);
  assert_float_equal(vda->write_bps, 2097152.0, EPS);
  assert_float_equal(vda->await_ms, 330.0 / 160.0, EPS);
  assert_float_equal(vda->util_pct, 25.0, EPS);
  assert_float_equal(vda->aqu_sz, 0.5, EPS);
  /* PSI: +100000 us cpu, +50000/+20000 memory, +250000/+100000 io over 1 s. */
  assert_true(has_bit(&s, GW_H_PSI_CPU) && has_bit(&s, GW_H_PSI_MEM) && has_bit(&s, GW_H_PSI_IO));
  assert_float_equal(s.psi_cpu_some_pct, 10.0, EPS);
  assert_float_equal(s.psi_mem_some_pct, 5.0, EPS);
  assert_float_equal(s.psi_mem_full_pct, 2.0, EPS);
  assert_float_equal(s.psi_io_some_pct, 25.0, EPS);
  assert_float_equal(s.psi_io_full_pct, 10.0, EPS);
  assert_int_equal(s.mem_available_bytes, 20000000LL * 1024);
  assert_float_equal(s.loadavg_1m, 1.5, EPS);
  assert_int_equal(s.procs_running, 3);
  assert_int_equal(s.on_battery, 0);
  assert_string_equal(s.governor, "performance");
  /* Processes: target +60 ticks, worker 1002 +100, grandchild +20 over 1 s. */
  assert_int_equal(s.nprocs, 4);
  assert_null(find_proc(&s, 1001));
  assert_float_equal(find_proc(&s, 1000)->cpu_pct, 60.0 * 100.0 / tck, EPS);
  assert_int_equal(find_proc(&s, 1000)->threads_running, 1);
  /* Of the target's 60 ticks: main thread +25, autograd's pt_autograd_0 (task
   * 1011, found by its name on the t0 scan) +30, another thread +5: the
   * launching threads hold 55, not the process's 60. */
  assert_float_equal(find_proc(&s, 1000)->main_thread_cpu_pct, 25.0 * 100.0 / tck, EPS);
  assert_float_equal(find_proc(&s, 1000)->launch_threads_cpu_pct, 55.0 * 100.0 / tck, EPS);
  assert_float_equal(find_proc(&s, 1002)->launch_threads_cpu_pct, -1, EPS); /* target only */
  assert_float_equal(find_proc(&s, 1002)->cpu_pct, 100.0 * 100.0 / tck, EPS);
  assert_float_equal(find_proc(&s, 1003)->cpu_pct, 20.0 * 100.0 / tck, EPS);
  assert_non_null(find_proc(&s, 1004));
  assert_float_equal(find_proc(&s, 1004)->cpu_pct, -1, EPS);
  assert_int_equal(ev.n, 2);
  assert_string_equal(ev.ev[0].kind, "proc_start");
  assert_int_equal(ev.ev[0].pid, 1004);
  assert_non_null(strstr(ev.ev[0].message, "pt_data_worker"));
  assert_int_equal(ev.ev[0].t_ns, T0_NS + 1000000000LL);
  assert_string_equal(ev.ev[1].kind, "proc_exit");
  assert_int_equal(ev.ev[1].pid, 1001);
  assert_non_null(strstr(ev.ev[1].message, "pt_data_worker"));

  /* t2, two seconds later, no rescan: cpu1 went offline, grandchild exited,
   * new worker 1005 is not looked for, the io pressure file is gone. */
  stepper_point(&st, "train_tree", "t2");
  ev.n = 0;
  assert_int_equal(gw_host_sample(h, T0_NS + 3000000000LL, 0, &s, &sink, &err), GW_OK);
  assert_string_equal(err.msg, "");
  assert_true(has_bit(&s, GW_H_CPU));
  /* cpu0 over 200 ticks: user 100, system 50+5+5, idle 40, iowait went back
   * (counts 0). */
  assert_float_equal(s.total.busy_pct, 80.0, EPS);
  assert_float_equal(s.total.iowait_pct, 0.0, EPS);
  assert_int_equal(s.ncores, 1);
  assert_int_equal(s.cores[0].core, 0);
  assert_float_equal(s.cores[0].user_pct, 50.0, EPS);
  assert_float_equal(s.cores[0].system_pct, 30.0, EPS);
  /* vda over 2 s: +400 writes, 8192 sectors, 1200 ms, io_ticks +1000, weighted
   * +2400. */
  vda = find_disk(&s, "vda");
  assert_non_null(vda);
  assert_float_equal(vda->r_per_s, 0.0, EPS);
  assert_float_equal(vda->w_per_s, 200.0, EPS);
  assert_float_equal(vda->write_bps, 2097152.0, EPS);
  assert_float_equal(vda->await_ms, 3.0, EPS);
  assert_float_equal(vda->util_pct, 50.0, EPS);
  assert_float_equal(vda->aqu_sz, 1.2, EPS);
  assert_true(has_bit(&s, GW_H_PSI_CPU));
  assert_float_equal(s.psi_cpu_some_pct, 0.0, EPS);
  assert_false(has_bit(&s, GW_H_PSI_IO));
  assert_int_equal(s.nprocs, 3);
  assert_null(find_proc(&s, 1005));
  assert_float_equal(find_proc(&s, 1000)->cpu_pct, 100.0 * 100.0 / tck / 2.0, EPS);
  /* without a rescan the autograd thread found before is still read: idle */
  assert_float_equal(find_proc(&s, 1000)->launch_threads_cpu_pct, 0.0, EPS);
  assert_float_equal(find_proc(&s, 1002)->cpu_pct, 0.0, EPS);
  assert_float_equal(find_proc(&s, 1004)->cpu_pct, 40.0 * 100.0 / tck / 2.0, EPS);
  assert_int_equal(ev.n, 1);
  assert_string_equal(ev.ev[0].kind, "proc_exit");
  assert_int_equal(ev.ev[0].pid, 1003);

  /* Same timestamp again: rates are not computed over a zero interval. */
  assert_int_equal(gw_host_sample(h, T0_NS + 3000000000LL, 0, &s, &sink, &err), GW_OK);
  assert_false(has_bit(&s, GW_H_CPU));
  assert_false(has_bit(&s, GW_H_PSI_CPU));
  assert_int_equal(s.ndisks, 0);
  assert_float_equal(find_proc(&s, 1000)->cpu_pct, -1, EPS);
  assert_non_null(strstr(err.msg, "did not advance"));

  struct gw_host_info info;
  gw_host_info(h, &info);
  assert_string_equal(info.hostname, "trainbox-01");
  assert_string_equal(info.cpu_model, "AMD EPYC");
  assert_int_equal(info.logical_cpus, 2);
  assert_int_equal(info.physical_cores, 2);
  assert_int_equal(info.mem_total_bytes, 24684096LL * 1024);
  assert_true(strlen(info.kernel) > 0);

  gw_host_close(h);
  stepper_done(&st);
}

static void test_sample_malformed(void **state) {
  (void)state;
  struct stepper st;
  stepper_init(&st);
  stepper_point(&st, "malformed", "t0");
  struct gw_host *h = open_host(st.root, 1000);
  struct gw_err err = {{0}};
  struct gw_host_sample s;
  assert_int_equal(gw_host_sample(h, T0_NS, 1, &s, NULL, &err), GW_OK);
  /* Every broken file is named; nothing else is lost. */
  assert_non_null(strstr(err.msg, "/proc/stat line 3"));
  assert_non_null(strstr(err.msg, "/proc/meminfo line 1: MemTotal"));
  assert_non_null(strstr(err.msg, "/proc/loadavg"));
  assert_non_null(strstr(err.msg, "/proc/pressure/cpu"));
  assert_non_null(strstr(err.msg, "/proc/1001/stat"));
  assert_false(has_bit(&s, GW_H_MEM));
  assert_int_equal(s.mem_total_bytes, -1);
  assert_false(has_bit(&s, GW_H_LOAD));
  assert_false(has_bit(&s, GW_H_POWER)); /* no supplies in this tree */
  assert_string_equal(s.governor, "");
  /* Target with the odd comm, and worker 1002; 1001's stat is cut short. */
  assert_int_equal(s.nprocs, 2);
  assert_string_equal(s.procs[0].comm, "x) (y z");
  assert_int_equal(s.procs[0].threads_running, 0);
  const struct gw_proc_sample *worker = find_proc(&s, 1002);
  assert_non_null(worker);
  /* its RSS, 2694821369213269 pages, would overflow in bytes: unknown */
  assert_int_equal(worker->rss_bytes, -1);
  /* Second sample of the same files: no tick passed, so no CPU rates; the
   * diskstats line with too few fields is noted again, vda shows idle. */
  assert_int_equal(gw_host_sample(h, T0_NS + 100000000LL, 0, &s, NULL, &err), GW_OK);
  assert_false(has_bit(&s, GW_H_CPU));
  assert_non_null(strstr(err.msg, "sda has 3 counters"));
  assert_int_equal(s.ndisks, 1);
  assert_float_equal(s.disks[0].util_pct, 0.0, EPS);
  assert_true(has_bit(&s, GW_H_PSI_MEM));
  assert_float_equal(s.psi_mem_some_pct, 0.0, EPS);
  gw_host_close(h);
  stepper_done(&st);
}

/* Writes ROOT/proc/stat with ncores cpu lines: each core busy `busy` ticks
 * of every 100 since boot, tick_s seconds of them. */
static void write_proc_stat(const char *root, int ncores, int busy, int tick_s) {
  char path[512];
  snprintf(path, sizeof path, "%s/proc", root);
  mkdir(path, 0700);
  snprintf(path, sizeof path, "%s/proc/stat", root);
  FILE *f = fopen(path, "w");
  assert_non_null(f);
  long long t = 100LL * tick_s, b = (long long)busy * tick_s;
  fprintf(f, "cpu  %lld 0 0 %lld 0 0 0 0 0 0\n", b * ncores, (t - b) * ncores);
  for (int c = 0; c < ncores; c++)
    fprintf(f, "cpu%d %lld 0 0 %lld 0 0 0 0 0 0\n", c, b, t - b);
  fclose(f);
}

/* A host whose online cores grow past the sampler's first table (256 rows:
 * a large server bringing CPUs online during a run): the table moves, and
 * the sample's per-core rows must follow it. Under AddressSanitizer (the
 * test build) a row read from the old table fails here. */
static void test_cores_grow_past_the_table(void **state) {
  (void)state;
  struct stepper st; /* its scratch folder, written here instead of pointed at a fixture tree */
  stepper_init(&st);
  write_proc_stat(st.dir, 8, 50, 10);
  struct gw_host *h = NULL;
  struct gw_err err = {{0}};
  assert_int_equal(gw_host_open(&h, st.dir, &err), GW_OK);
  struct gw_host_sample s;
  assert_int_equal(gw_host_sample(h, T0_NS, 1, &s, NULL, &err), GW_OK);
  write_proc_stat(st.dir, 300, 50, 11);
  assert_int_equal(gw_host_sample(h, T0_NS + 1000000000LL, 1, &s, NULL, &err), GW_OK);
  /* the 8 cores seen both times, each busy half of the second */
  assert_int_equal(s.ncores, 8);
  for (int c = 0; c < s.ncores; c++)
    assert_float_equal(s.cores[c].busy_pct, 50.0, 1e-6);
  gw_host_close(h);
  char path[512];
  snprintf(path, sizeof path, "%s/proc/stat", st.dir);
  unlink(path);
  snprintf(path, sizeof path, "%s/proc", st.dir);
  rmdir(path);
  stepper_done(&st);
}

static void test_open_errors(void **state) {
  (void)state;
  struct gw_host *h = (struct gw_host *)&h;
  struct gw_err err = {{0}};
  assert_int_equal(gw_host_open(&h, "/nonexistent/gpuwhy-root", &err), GW_ENOTSUP);
  assert_null(h);
  assert_non_null(strstr(err.msg, "/nonexistent/gpuwhy-root/proc/stat"));
  /* A target that does not exist: the sample still works and says so. */
  char root[1024];
  snprintf(root, sizeof root, "%s/proc/train_tree/t0", fixtures());
  h = open_host(root, 4242);
  struct gw_host_sample s;
  assert_int_equal(gw_host_sample(h, T0_NS, 0, &s, NULL, &err), GW_OK);
  assert_int_equal(s.nprocs, 0);
  assert_non_null(strstr(err.msg, "target process 4242 not found"));
  gw_host_close(h);
  gw_host_close(NULL);
}

/* ---- the live system ---- */

static int64_t thread_cpu_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* The sampler on the live system, following this very process. */
static struct gw_host *open_live_self(void) {
  return open_host("", (int)getpid());
}

/* When a live sample was taken: the wall clock and this thread's CPU clock. */
struct live_mark {
  int64_t t_ns, cpu_ns;
};

/* Samples h now into *s (rescan: the process tree read again). */
static struct live_mark sample_now(struct gw_host *h, int rescan, struct gw_host_sample *s) {
  struct live_mark m = {gw_now_realtime_ns(), thread_cpu_ns()};
  struct gw_err err = {{0}};
  if (gw_host_sample(h, m.t_ns, rescan, s, NULL, &err) != GW_OK)
    fail_msg("live sample: %s", err.msg);
  return m;
}

static void test_live_root(void **state) {
  (void)state;
  struct gw_host *h = open_live_self();
  struct gw_host_sample s;
  struct live_mark m0 = sample_now(h, 1, &s);
  /* Burn 150 ms of this thread's CPU (not of wall time: on a loaded machine
   * the wall clock runs on while the thread waits for a core). */
  volatile uint64_t spin = 0;
  while (thread_cpu_ns() - m0.cpu_ns < 150000000LL)
    spin++;
  struct live_mark m1 = sample_now(h, 1, &s);
  double expect_pct = 100.0 * (double)(m1.cpu_ns - m0.cpu_ns) / (double)(m1.t_ns - m0.t_ns);
  assert_true(has_bit(&s, GW_H_CPU));
  assert_true(s.ncores >= 1);
  assert_true(s.total.busy_pct >= 0 && s.total.busy_pct <= 100.0 + EPS);
  assert_true(has_bit(&s, GW_H_MEM));
  assert_true(s.mem_total_bytes > 0 && s.mem_available_bytes <= s.mem_total_bytes);
  assert_true(s.nprocs >= 1);
  assert_int_equal(s.procs[0].pid, (int)getpid());
  assert_int_equal(s.procs[0].role, GW_ROLE_TARGET);
  assert_true(s.procs[0].threads >= 1);
  assert_true(s.procs[0].threads_running >= 1); /* this thread, reading (counted on rescans) */
  /* The main thread's share of the interval, as its own CPU clock saw it
   * (the kernel counts in 10 ms ticks: 150 ms is known to about 15 points). */
  assert_true(fabs(s.procs[0].main_thread_cpu_pct - expect_pct) <= 15.0 + EPS);
  assert_true(s.procs[0].main_thread_cpu_pct <= 100.0 + 10);
  /* process CPU comes in 10 ms ticks: over 150 ms or more, one tick is up to 7 points */
  assert_true(s.procs[0].cpu_pct >= 0 && s.procs[0].cpu_pct <= 100.0 * s.procs[0].threads + 15);
  assert_true(s.procs[0].rss_bytes > 0);
  struct gw_host_info info;
  gw_host_info(h, &info);
  assert_true(info.logical_cpus >= 1);
  assert_true(info.hostname[0] != '\0');
  assert_true(info.mem_total_bytes > 0);
  gw_host_close(h);
}

/* A thread named as PyTorch names autograd's device threads, burning CPU. */
struct burner {
  int64_t cpu_ns; /* its own CPU time over its run */
  int64_t burn_ns;
  int done[2]; /* a pipe: the thread burns, says so, and stays until told to end */
  int end[2];
};
static void *autograd_like(void *arg) {
  struct burner *b = arg;
  pthread_setname_np(pthread_self(), "pt_autograd_0");
  int64_t c0 = thread_cpu_ns();
  volatile uint64_t spin = 0;
  while (thread_cpu_ns() - c0 < b->burn_ns)
    spin++;
  b->cpu_ns = thread_cpu_ns() - c0;
  char c = 1;
  assert_int_equal(write(b->done[1], &c, 1), 1);
  assert_int_equal(read(b->end[0], &c, 1), 1); /* alive while sampled, as autograd's threads are */
  return NULL;
}

/* The live system: the launching threads' CPU is the main thread's plus the
 * pt_autograd_ thread's, read from this process's own /proc/self/task. */
static void test_live_autograd_thread(void **state) {
  (void)state;
  struct gw_host *h = open_live_self();
  struct gw_host_sample s;
  struct burner b = {0, 200000000LL, {-1, -1}, {-1, -1}};
  assert_int_equal(pipe(b.done), 0);
  assert_int_equal(pipe(b.end), 0);
  pthread_t th;
  assert_int_equal(pthread_create(&th, NULL, autograd_like, &b), 0);
  /* the thread names itself first thing: a rescan after that finds it */
  struct timespec pause = {0, 20000000L};
  nanosleep(&pause, NULL);
  struct live_mark m0 = sample_now(h, 1, &s);
  assert_float_equal(s.procs[0].launch_threads_cpu_pct, -1, EPS); /* a first sample has no rate */
  char c;
  assert_int_equal(read(b.done[0], &c, 1), 1);
  struct live_mark m1 = sample_now(h, 0, &s);
  assert_int_equal(write(b.end[1], &c, 1), 1);
  pthread_join(th, NULL);
  for (int i = 0; i < 2; i++) {
    close(b.done[i]);
    close(b.end[i]);
  }
  /* the thread ran before t0 for up to 20 ms of its 200: the interval holds
   * at least 180 ms of it, and this thread's own share */
  double dt = (double)(m1.t_ns - m0.t_ns), own_ns = (double)(m1.cpu_ns - m0.cpu_ns);
  double want_min = 100.0 * (own_ns + 0.9 * (double)b.cpu_ns - 20e6) / dt;
  double want_max = 100.0 * (own_ns + (double)b.cpu_ns) / dt;
  double got = s.procs[0].launch_threads_cpu_pct;
  /* the kernel counts in 10 ms ticks: two ticks either way */
  double tick_pct = 100.0 * 2e7 / dt;
  assert_true(got >= want_min - tick_pct && got <= want_max + tick_pct);
  assert_true(got >= s.procs[0].main_thread_cpu_pct);
  gw_host_close(h);
}

int main(void) {
  if (!fixtures()) {
    fprintf(stderr, "GW_FIXTURES is not set: skipping\n");
    return 77;
  }
  const struct CMUnitTest tests[] = {
      cmocka_unit_test(test_parse_proc_stat_real),
      cmocka_unit_test(test_parse_proc_stat_offline_core_and_errors),
      cmocka_unit_test(test_parse_pid_stat_real_and_weird_comm),
      cmocka_unit_test(test_parse_diskstats),
      cmocka_unit_test(test_parse_psi),
      cmocka_unit_test(test_sample_train_tree),
      cmocka_unit_test(test_sample_malformed),
      cmocka_unit_test(test_cores_grow_past_the_table),
      cmocka_unit_test(test_open_errors),
      cmocka_unit_test(test_live_root),
      cmocka_unit_test(test_live_autograd_thread),
  };
  return cmocka_run_group_tests(tests, NULL, NULL);
}
