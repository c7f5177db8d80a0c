/* The multi-GPU analysis: the NCCL INFO parser on real line shapes, and the
 * summary, the rule and the multi-node merge on small recordings written
 * through the store API, shaped like DDP on two H200s as this project
 * measured it. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>

#include "analysis/diagnosis.h"
#include "store/store_sql.h"
#include "analysis/multi_gpu.h"
#include "analysis/nccl_transport.h"
#include "analysis/node_merge.h"
#include "analysis/rules.h"
#include "render/evidence_text.h"
#include "report_synth.h"
#include "store/store_trace.h"
#include "fixture_temp.h"
#include "fixture_sql.h"
#include "support_findings.h"
#include "support_test_main.h"

/* The finding's evidence with this id, or NULL. */
static const struct gw_evidence *evidence_of(const struct gw_finding *f, const char *id) {
  for (int e = 0; e < f->nevidence; e++)
    if (f->evidence[e].id && strcmp(f->evidence[e].id, id) == 0)
      return &f->evidence[e];
  return NULL;
}

/* 1 when some evidence sentence of f (English) holds needle. */
static int evidence_says(const struct gw_finding *f, const char *needle) {
  for (int e = 0; e < f->nevidence; e++) {
    char line[GW_TEXT];
    gw_evidence_text(&f->evidence[e], 0, line, sizeof line);
    if (strstr(line, needle))
      return 1;
  }
  return 0;
}

/* ---- the parser ---- */

/* ANY: a field the case does not check. */
#define ANY (-99)

static void parses_channel_lines(void **state) {
  (void)state;
  static const struct {
    const char *line;
    int channel, src_rank, dst_rank, direction; /* direction: 0 none, 1 send, 2 receive */
    enum gw_nccl_transport transport;
    const char *via; /* NULL: not checked */
  } cases[] = {
      {"gpu-a:4021:4188 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read", 0, 0, 1, 0, GW_NCCL_P2P_CUMEM,
       NULL},
      {"srv:77:90 [3] NCCL INFO Channel 09 : 3[3] -> 4[4] via SHM/direct/direct", 9, ANY, ANY, ANY, GW_NCCL_SHM, NULL},
      {"n1:9621:9692 [7] NCCL INFO Channel 14/0 : 15[7] -> 0[0] [send] via NET/Socket/0", ANY, 15, ANY, 1,
       GW_NCCL_NET_SOCKET, NULL},
      {"h:1:2 [0] NCCL INFO Channel 07/0 : 0[0] -> 2[0] [receive] via NET/IB/3/GDRDMA", ANY, ANY, ANY, 2,
       GW_NCCL_NET_IB_GDR, NULL},
      {"h:1:2 [0] NCCL INFO Channel 01/1 : 3[81000] -> 0[41000] [receive] via NET/IB/0/Shared", ANY, ANY, ANY, ANY,
       GW_NCCL_NET_IB, NULL},
      {"h:1:2 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/direct pointer", ANY, ANY, ANY, ANY, GW_NCCL_P2P_DIRECT,
       "P2P/direct pointer"},
      {"h:1:2 [4] NCCL INFO Channel 00/0 : 4[b5000] -> 1[f000] via P2P/IPC/read", ANY, ANY, ANY, ANY, GW_NCCL_P2P_IPC,
       NULL},
      {"h:1:2 [0] NCCL INFO Channel 00/0 : 1[0] -> 2[0] [receive] via NET/IBext_v8/1", ANY, ANY, ANY, ANY,
       GW_NCCL_NET_IB, NULL},
  };
  struct gw_nccl_line l;
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    print_message("%s\n", cases[i].line);
    assert_int_equal(gw_nccl_parse_line(cases[i].line, &l), GW_NCCL_LINE_CHANNEL);
    const int want[4] = {cases[i].channel, cases[i].src_rank, cases[i].dst_rank, cases[i].direction};
    const int got[4] = {l.channel, l.src_rank, l.dst_rank, l.direction};
    for (int k = 0; k < 4; k++)
      if (want[k] != ANY)
        assert_int_equal(got[k], want[k]);
    assert_int_equal(l.transport, cases[i].transport);
    if (cases[i].via)
      assert_string_equal(l.via, cases[i].via);
  }
  assert_true(gw_nccl_transport_is_slow(GW_NCCL_SHM));
  /* the prefix of the first line */
  assert_int_equal(gw_nccl_parse_line(cases[0].line, &l), GW_NCCL_LINE_CHANNEL);
  assert_string_equal(l.host, "gpu-a");
  assert_int_equal(l.pid, 4021);
  assert_int_equal(l.tid, 4188);
  assert_int_equal(l.cuda_dev, 0);
  /* the ring order lines share the word but are not connections */
  assert_int_not_equal(gw_nccl_parse_line("h:1:2 [0] NCCL INFO Channel 00/02 :    0   1", &l), GW_NCCL_LINE_CHANNEL);
}

static void parses_setup_lines(void **state) {
  (void)state;
  struct gw_nccl_line l;
  assert_int_equal(gw_nccl_parse_line("h:10:11 [0] NCCL INFO NCCL version 2.21.5+cuda12.4", &l), GW_NCCL_LINE_VERSION);
  assert_string_equal(l.version, "2.21.5+cuda12.4");
  assert_int_equal(gw_nccl_parse_line("NCCL version 2.18.5+cuda11.8", &l), GW_NCCL_LINE_VERSION);
  assert_string_equal(l.version, "2.18.5+cuda11.8");
  assert_int_equal(
      gw_nccl_parse_line("box:106:121 [1] NCCL INFO comm 0x55cd1a0bf930 rank 1 nRanks 2 nNodes 1 localRanks 2 "
                         "localRank 1 MNNVL 0",
                         &l),
      GW_NCCL_LINE_COMM);
  const int comm[5] = {l.rank, l.nranks, l.nnodes, l.local_ranks, l.local_rank}, want_comm[5] = {1, 2, 1, 2, 1};
  for (int k = 0; k < 5; k++)
    assert_int_equal(comm[k], want_comm[k]);
  assert_int_equal(gw_nccl_parse_line("b:1884:2298 [0] NCCL INFO ncclCommInitRank comm 0x564531f27c80 rank 2 nranks 3 "
                                      "cudaDev 0 nvmlDev 5 busId 31000 commId 0x9ca74fa6e40df7f4 - Init START",
                                      &l),
                   GW_NCCL_LINE_COMM);
  assert_int_equal(l.rank, 2);
  assert_int_equal(l.nranks, 3);
  assert_int_equal(l.nvml_dev, 5);
  /* NVLS's own comm line is no rank line */
  assert_int_not_equal(gw_nccl_parse_line("h:7:8 [0] NCCL INFO NVLS comm 0x55a7be5601c0 headRank 0 nHeads 8", &l),
                       GW_NCCL_LINE_COMM);
  assert_int_equal(gw_nccl_parse_line("axa:30:31 [0] NCCL INFO Using network Socket", &l), GW_NCCL_LINE_NETWORK);
  assert_string_equal(l.network, "Socket");
  assert_int_equal(gw_nccl_parse_line("axa:30:31 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.", &l),
                   GW_NCCL_LINE_ENV);
  assert_string_equal(l.env_name, "NCCL_IB_DISABLE");
  assert_string_equal(l.env_value, "1");
  /* lines whose kind is all they say */
  static const struct {
    const char *line;
    enum gw_nccl_line_kind kind;
  } kinds[] = {
      {"h:1:2 [1] NCCL INFO Ring 00 : 0 -> 1 -> 0", GW_NCCL_LINE_RING},
      {"h:1:2 [1] NCCL INFO Trees [0] -1/-1/-1->1->0 [1] -1/-1/-1->1->0", GW_NCCL_LINE_TREE},
      {"h:1:2 [0] NCCL INFO Could not enable P2P between dev 0(=41000) and dev 1(=81000)", GW_NCCL_LINE_P2P_FAILED},
      {"h:1:2 [3] NCCL INFO NET/IB : No device found.", GW_NCCL_LINE_NO_IB},
      /* not NCCL, damaged or empty */
      {"Epoch 1: loss 0.3", GW_NCCL_LINE_NOT_NCCL},
      {"", GW_NCCL_LINE_NOT_NCCL},
      {NULL, GW_NCCL_LINE_NOT_NCCL},
  };
  for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
    assert_int_equal(gw_nccl_parse_line(kinds[i].line, &l), kinds[i].kind);
  assert_int_equal(gw_nccl_parse_line("h:1:2 [6] NCCL INFO 16 coll channels, 0 nvls channels, 16 p2p channels", &l),
                   GW_NCCL_LINE_NVLS);
  assert_int_equal(l.nvls_channels, 0);
  assert_int_equal(
      gw_nccl_parse_line("user:852:900 [1] misc/socket.cc:441 NCCL WARN socketFinalizeAccept: wrong type", &l),
      GW_NCCL_LINE_WARN);
  assert_int_equal(l.pid, 852);
  assert_int_equal(l.cuda_dev, 1);
  assert_string_equal(l.text, "socketFinalizeAccept: wrong type");
  /* an mpirun rank tag before the prefix */
  assert_int_equal(gw_nccl_parse_line("[0] w1:227602:227667 [0] NCCL INFO Using network IB", &l), GW_NCCL_LINE_NETWORK);
  assert_int_equal(l.pid, 227602);
  /* damaged */
  assert_int_equal(gw_nccl_parse_line("::: [99999999999999] NCCL INFO Channel 99999999999/ : [ -> via ???", &l),
                   GW_NCCL_LINE_CHANNEL);
  assert_int_equal(l.transport, GW_NCCL_UNKNOWN);
  assert_int_equal(l.pid, -1);
}

static void summary_gives_advice_on_slow_paths(void **state) {
  (void)state;
  struct gw_nccl_summary *s = calloc(1, sizeof *s);
  /* one machine, P2P impossible: SHM between the GPUs */
  gw_nccl_summary_init(s);
  gw_nccl_summary_add(s, 0, 100, "a:100:110 [0] NCCL INFO comm 0x1 rank 0 nRanks 2 nNodes 1 localRanks 2 localRank 0");
  gw_nccl_summary_add(s, 0, 101, "a:101:111 [1] NCCL INFO comm 0x2 rank 1 nRanks 2 nNodes 1 localRanks 2 localRank 1");
  gw_nccl_summary_add(s, 0, 100,
                      "a:100:110 [0] NCCL INFO Could not enable P2P between dev 0(=41000) and dev 1(=81000)");
  gw_nccl_summary_add(s, 0, 100, "a:100:110 [0] NCCL INFO Channel 00 : 0[0] -> 1[1] via SHM/direct/direct");
  gw_nccl_summary_add(s, 0, 101, "a:101:111 [1] NCCL INFO Channel 00 : 1[1] -> 0[0] via SHM/direct/direct");
  gw_nccl_summary_finish(s);
  assert_true(s->has_log);
  assert_int_equal(s->nranks_seen, 2);
  assert_int_equal(s->connections[GW_NCCL_SHM], 2);
  assert_true(s->advice[GW_NCCL_ADV_SHM_BETWEEN_GPUS]);
  assert_true(s->advice[GW_NCCL_ADV_P2P_DISABLED]);
  assert_false(s->advice[GW_NCCL_ADV_SOCKET_ONE_NODE]);
  const struct gw_nccl_rank *r = gw_nccl_rank_for_gpu(s, 0, 101, 1);
  assert_non_null(r);
  assert_int_equal(r->rank, 1);
  char tr[64];
  gw_nccl_rank_transports(r, tr, sizeof tr);
  assert_string_equal(tr, "SHM");

  /* sockets inside one machine, with P2P and SHM switched off in the env table */
  gw_nccl_summary_init(s);
  gw_nccl_summary_env(s, "NCCL_P2P_DISABLE", "1");
  gw_nccl_summary_env(s, "NCCL_SHM_DISABLE", "1");
  gw_nccl_summary_add(s, 0, 0, "a:100:110 [0] NCCL INFO Using network Socket");
  gw_nccl_summary_add(s, 0, 0, "a:100:110 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] [send] via NET/Socket/0");
  gw_nccl_summary_finish(s);
  assert_true(s->advice[GW_NCCL_ADV_SOCKET_ONE_NODE]);
  assert_true(s->advice[GW_NCCL_ADV_P2P_DISABLED]);
  assert_true(s->advice[GW_NCCL_ADV_SHM_DISABLED]);
  assert_string_equal(s->network, "Socket");
  /* the pid came from the prefix */
  assert_int_equal(s->ranks[0].pid, 100);

  /* two nodes over IB without GPUDirect RDMA; NVLink P2P inside each */
  gw_nccl_summary_init(s);
  gw_nccl_summary_add(s, 0, 0, "a:1:2 [0] NCCL INFO comm 0x1 rank 0 nRanks 4 nNodes 2 localRanks 2 localRank 0");
  gw_nccl_summary_add(s, 0, 0, "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read");
  gw_nccl_summary_add(s, 0, 0, "a:1:2 [0] NCCL INFO Channel 00/0 : 2[0] -> 0[0] [receive] via NET/IB/0");
  gw_nccl_summary_finish(s);
  assert_true(s->advice[GW_NCCL_ADV_IB_NO_GDR]);
  assert_false(s->advice[GW_NCCL_ADV_SHM_BETWEEN_GPUS]);

  /* a healthy NVLink pair gets no advice at all */
  gw_nccl_summary_init(s);
  gw_nccl_summary_add(s, 0, 0, "a:1:2 [0] NCCL INFO NCCL version 2.21.5+cuda12.4");
  gw_nccl_summary_add(s, 0, 0, "a:1:2 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[1] via P2P/CUMEM/read");
  gw_nccl_summary_add(s, 0, 0, "a:3:4 [1] NCCL INFO Channel 00/0 : 1[1] -> 0[0] via P2P/CUMEM/read");
  gw_nccl_summary_finish(s);
  for (int a = 0; a < GW_NCCL_NADVICE; a++)
    assert_false(s->advice[a]);
  assert_string_equal(s->version, "2.21.5+cuda12.4");
  free(s);
}

/* ---- recordings ---- */

#define STEP_NS 100000000LL /* one training step per 100 ms sample tick */
#define RUN_S 30.0

/* Compute and NCCL kernel windows inside each step, ms from the step start. */
struct step_shape {
  double compute_ms, nccl_from_ms, nccl_to_ms;
};

struct ddp_case {
  const char *host;
  int ngpus;
  synth_gpu_fn gpu;
  struct step_shape shape[8];
  double tensor_pct[8];
  int traced;    /* 0: counters only, 1: full kernel trace, 2: sampled windows */
  int pid_base;  /* rank r runs as pid pid_base + r */
  int rank_base; /* NCCL rank of GPU 0 */
  int world;     /* NCCL ranks in the job */
  int nodes;     /* nNodes NCCL reports */
  const char *via;
};

static int g_straggler = -1; /* which GPU gpu_ddp makes the busier one */

/* Both GPUs busy, as nvidia-smi sees a DDP job: the waiting rank's NCCL kernel spins and counts. */
static void gpu_ddp(int gpu, double t, struct synth_gpu *o) {
  gpu_gemm(gpu, t, o);
  if (t < SYNTH_STARTUP_S)
    return;
  o->util = 94 + ((long)(t * 10) % 2);
  o->sm = gpu == g_straggler ? 88 : 64;
  o->clock_mhz = gpu == g_straggler ? 1550 : 1955;
  o->power_w = 695;
}

static void gpu_balanced(int gpu, double t, struct synth_gpu *o) {
  gpu_gemm(gpu, t, o);
  if (t < SYNTH_STARTUP_S)
    return;
  o->util = 95;
  o->sm = 86 + ((long)(t * 10) % 2) + (gpu % 2);
}

static void exec_ok(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  int rc = sqlite3_exec(db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK)
    fprintf(stderr, "%s: %s\n", sql, msg ? msg : "");
  sqlite3_free(msg);
  assert_int_equal(rc, SQLITE_OK);
}

static void put_kernel(sqlite3_stmt *k, int64_t pid, int dev, int64_t a, int64_t b, int nccl) {
  sqlite3_bind_int64(k, 1, pid);
  sqlite3_bind_int(k, 2, dev);
  sqlite3_bind_int64(k, 3, a);
  sqlite3_bind_int64(k, 4, b);
  sqlite3_bind_int(k, 5, nccl);
  assert_int_equal(sqlite3_step(k), SQLITE_DONE);
  sqlite3_reset(k);
}

static void put_log(sqlite3_stmt *s, int64_t pid, const char *line) {
  sqlite3_bind_int64(s, 1, SYNTH_T0_NS);
  sqlite3_bind_int64(s, 2, pid);
  sqlite3_bind_text(s, 3, line, -1, SQLITE_TRANSIENT);
  assert_int_equal(sqlite3_step(s), SQLITE_DONE);
  sqlite3_reset(s);
}

/* Sampled windows: 200 ms of every second, per process. */
static int in_window(int64_t t) {
  return (t - SYNTH_T0_NS) % 1000000000LL < 200000000LL;
}

static void write_case(const char *path, const struct ddp_case *c) {
  assert_int_equal(synth_write(path, c->ngpus, RUN_S, 0, c->gpu, host_gemm), 0);
  struct gw_store *st;
  struct gw_err err;
  assert_int_equal(gw_store_open(&st, path, 0, &err), GW_OK);
  sqlite3 *db = gw_store_db(st);
  char sql[512];
  snprintf(sql, sizeof sql, "UPDATE run SET hostname = '%s'", c->host);
  exec_ok(db, sql);
  for (int g = 0; g < c->ngpus; g++)
    if (c->tensor_pct[g] > 0) {
      snprintf(sql, sizeof sql, "UPDATE gpu_sample SET tensor_active_pct = %f WHERE gpu = %d AND sm_active_pct > 20",
               c->tensor_pct[g], g);
      exec_ok(db, sql);
    }
  if (c->traced) {
    sqlite3_stmt *k = fixture_prepare(db, "INSERT INTO kernel (pid, device, stream, start_ns, end_ns, nccl)"
                                          " VALUES (?, ?, 7, ?, ?, ?)");
    int64_t t0 = SYNTH_T0_NS + (int64_t)(SYNTH_STARTUP_S * 1e9);
    for (int64_t t = t0; t + STEP_NS <= SYNTH_T0_NS + (int64_t)(RUN_S * 1e9); t += STEP_NS) {
      if (c->traced == 2 && !in_window(t))
        continue;
      for (int g = 0; g < c->ngpus; g++) {
        const struct step_shape *s = &c->shape[g];
        int64_t pid = c->pid_base + g;
        put_kernel(k, pid, g, t, t + (int64_t)(s->compute_ms * 1e6), 0);
        put_kernel(k, pid, g, t + (int64_t)(s->nccl_from_ms * 1e6), t + (int64_t)(s->nccl_to_ms * 1e6), 1);
      }
    }
    sqlite3_finalize(k);
    if (c->traced == 2) {
      for (int g = 0; g < c->ngpus; g++)
        for (int sec = 0; sec < (int)RUN_S; sec++) {
          snprintf(sql, sizeof sql,
                   "INSERT INTO trace_window (pid, start_ns, end_ns, mode) VALUES (%d, %lld, %lld, 'sampled')",
                   c->pid_base + g, (long long)(SYNTH_T0_NS + sec * 1000000000LL),
                   (long long)(SYNTH_T0_NS + sec * 1000000000LL + 200000000LL));
          exec_ok(db, sql);
        }
    }
  }
  if (c->via) {
    exec_ok(db, "CREATE TABLE IF NOT EXISTS nccl_log (t_ns INTEGER, pid INTEGER, line TEXT)");
    sqlite3_stmt *s = fixture_prepare(db, "INSERT INTO nccl_log VALUES (?, ?, ?)");
    char line[256];
    for (int g = 0; g < c->ngpus; g++) {
      int pid = c->pid_base + g, rank = c->rank_base + g;
      snprintf(line, sizeof line,
               "%s:%d:%d [%d] NCCL INFO comm 0x55cd1a0b%04x rank %d nRanks %d nNodes %d localRanks %d localRank %d "
               "MNNVL 0",
               c->host, pid, pid + 50, g, g, rank, c->world, c->nodes, c->ngpus, g);
      put_log(s, pid, line);
      for (int ch = 0; ch < 2; ch++) {
        snprintf(line, sizeof line, "%s:%d:%d [%d] NCCL INFO Channel %02d/0 : %d[%d] -> %d[%d] via %s", c->host, pid,
                 pid + 50, g, ch, rank, g, c->rank_base + (g + 1) % c->ngpus, (g + 1) % c->ngpus, c->via);
        put_log(s, pid, line);
      }
    }
    put_log(s, c->pid_base, "NCCL version 2.21.5+cuda12.4");
    sqlite3_finalize(s);
  }
  gw_store_close(st);
}

static char g_path[64];

static struct gw_diagnosis *diagnose_case(const struct ddp_case *c) {
  gw_strlcpy(g_path, "/tmp/gw_mgpu_XXXXXX", sizeof g_path);
  fixture_temp_file(g_path);
  write_case(g_path, c);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose_file(g_path, &dx, &err), GW_OK);
  /* GW_MGPU_KEEP=1 keeps the recordings to look at their reports */
  if (getenv("GW_MGPU_KEEP"))
    fprintf(stderr, "kept %s\n", g_path);
  else
    unlink(g_path);
  return dx;
}

/* Balanced DDP: both GPUs ~95% util, equal work, NCCL mostly hidden under
 * the backward pass: healthy, no multi_gpu_sync. */
static void balanced_pair_is_healthy(void **state) {
  (void)state;
  struct ddp_case c = {"gpu-a", 2, gpu_balanced,    {{90, 78, 92}, {90, 78, 92}}, {80, 80}, 1, 500, 0,
                       2,       1, "P2P/CUMEM/read"};
  struct gw_diagnosis *dx = diagnose_case(&c);
  const struct gw_multi_gpu *m = dx->multi;
  assert_non_null(m);
  assert_int_equal(m->ngpus, 2);
  assert_int_equal(m->timeline, GW_MGPU_FULL);
  assert_int_equal(m->straggler, -1);
  assert_false(m->imbalanced);
  assert_true(m->sm_spread_pts < 10);
  /* 14 ms of NCCL a 100 ms step, 12 of them under compute */
  assert_float_equal(m->gpus[0].nccl_share, 0.14, 0.01);
  assert_float_equal(m->gpus[0].overlap_frac, 12.0 / 14.0, 0.01);
  assert_float_equal(m->exposed_share, 0.02, 0.005);
  assert_false(m->slow_transport);
  assert_string_equal(m->gpus[1].transport, "P2P/CUMEM");
  assert_int_equal(m->gpus[1].rank, 1);
  assert_null(support_finding(dx, "multi_gpu_sync"));
  gw_diagnosis_free(dx);
}

/* One rank with 40% more work: util the same, SM 88 vs 64, tensor 67 vs 37,
 * the busy card at a lower clock; the other waits in NCCL. */
static void straggler_is_named_with_its_cause(void **state) {
  (void)state;
  g_straggler = 0;
  struct ddp_case c = {"gpu-a", 2, gpu_ddp, {{85, 70, 95}, {48, 40, 95}}, {67, 37}, 1, 500, 0, 2, 1, "P2P/CUMEM/read"};
  struct gw_diagnosis *dx = diagnose_case(&c);
  const struct gw_multi_gpu *m = dx->multi;
  assert_non_null(m);
  assert_int_equal(m->straggler, 0);
  assert_int_equal(m->gpus[0].rank, 0);
  assert_int_equal(m->cause, GW_STRAGGLER_MORE_WORK);
  assert_true(m->gpus[1].nccl_share > m->gpus[0].nccl_share + 0.2);
  assert_float_equal(m->sm_spread_pts, 24, 0.5);
  const struct gw_finding *f = support_finding(dx, "multi_gpu_sync");
  assert_non_null(f);
  assert_string_equal(dx->verdict, "multi_gpu_sync");
  /* the straggler as data (its label and rank) and in the English sentence */
  const struct gw_evidence *st = evidence_of(f, "straggler_rank");
  assert_non_null(st);
  assert_string_equal(gw_evidence_value(st, "label")->text, "GPU 0");
  assert_float_equal(gw_evidence_value(st, "rank")->number, 0, 0);
  assert_true(evidence_says(f, "GPU 0 (NCCL rank 0) is the straggler"));
  /* balancing the work comes before overlapping the communication */
  assert_string_equal(f->fixes[0].id, "multi_gpu_sync.balance_work");
  /* the waiting GPU's exposed NCCL time is its communication row */
  assert_true(dx->ledgers[1].row_ns[GW_ROW_IDLE_COMM] > 3 * dx->ledgers[0].row_ns[GW_ROW_IDLE_COMM]);
  gw_diagnosis_free(dx);

  /* the same counters on the other GPU move the straggler with them */
  g_straggler = 1;
  struct ddp_case d = {"gpu-a", 2, gpu_ddp, {{48, 40, 95}, {85, 70, 95}}, {37, 67}, 0, 500, 0, 2, 1, NULL};
  dx = diagnose_case(&d);
  assert_int_equal(dx->multi->timeline, GW_MGPU_NO_TIMELINE);
  assert_int_equal(dx->multi->straggler, 1);
  assert_int_equal(dx->multi->cause, GW_STRAGGLER_MORE_WORK);
  assert_false(dx->multi->nccl.has_log);
  assert_non_null(support_finding(dx, "multi_gpu_sync"));
  gw_diagnosis_free(dx);
}

/* Equal work, but the all-reduce runs after compute, never under it. */
static void exposed_communication_is_found(void **state) {
  (void)state;
  struct ddp_case c = {"gpu-a", 2, gpu_balanced,       {{60, 60, 95}, {60, 60, 95}}, {80, 80}, 1, 500, 0,
                       2,       1, "SHM/direct/direct"};
  struct gw_diagnosis *dx = diagnose_case(&c);
  const struct gw_multi_gpu *m = dx->multi;
  assert_int_equal(m->straggler, -1);
  assert_float_equal(m->exposed_share, 0.35, 0.01);
  assert_float_equal(m->gpus[0].overlap_frac, 0, 1e-9);
  assert_true(m->slow_transport);
  const struct gw_finding *f = support_finding(dx, "multi_gpu_sync");
  assert_non_null(f);
  assert_true(f->share_of_active >= 0.3);
  /* a transport setting is the cheapest fix, then overlapping */
  assert_string_equal(f->fixes[0].id, "multi_gpu_sync.nccl_p2p");
  assert_string_equal(f->fixes[1].id, "multi_gpu_sync.overlap_allreduce");
  gw_diagnosis_free(dx);

  /* the same with a sampled trace: shares come from the windows only */
  struct ddp_case s = c;
  s.traced = 2;
  s.via = "P2P/CUMEM/read";
  dx = diagnose_case(&s);
  m = dx->multi;
  assert_int_equal(m->timeline, GW_MGPU_SAMPLED);
  assert_false(dx->ledgers[0].from_timeline);
  assert_float_equal(m->gpus[0].covered_s, 27 * 0.2, 0.11);
  assert_float_equal(m->exposed_share, 0.35, 0.02);
  f = support_finding(dx, "multi_gpu_sync");
  assert_non_null(f);
  assert_string_equal(f->fixes[0].id, "multi_gpu_sync.overlap_allreduce");
  gw_diagnosis_free(dx);
}

/* A single GPU, or an older recording without nccl_log: no summary, no log. */
static void one_gpu_has_no_summary(void **state) {
  (void)state;
  struct ddp_case c = {"gpu-a", 1, gpu_balanced, {{90, 78, 92}}, {80}, 0, 500, 0, 1, 1, NULL};
  struct gw_diagnosis *dx = diagnose_case(&c);
  assert_null(dx->multi);
  assert_null(support_finding(dx, "multi_gpu_sync"));
  gw_diagnosis_free(dx);
}

/* 8 ranks on 2 nodes of 4 GPUs, one recording per node; node b's GPU 2
 * does more work. */
static int g_node; /* which node gpu_node8 draws */
static void gpu_node8(int gpu, double t, struct synth_gpu *o) {
  g_straggler = g_node == 1 ? 2 : -1;
  gpu_ddp(gpu, t, o);
}

static void eight_ranks_on_two_nodes_merge(void **state) {
  (void)state;
  char paths[2][64];
  struct gw_recording *recs[2];
  for (int n = 0; n < 2; n++) {
    gw_strlcpy(paths[n], "/tmp/gw_mgpu_node_XXXXXX", sizeof paths[n]);
    fixture_temp_file(paths[n]);
    g_node = n;
    struct ddp_case c = {n ? "node-b" : "node-a", 4, gpu_node8, {{0}}, {37, 37, 37, 37}, 0, 700, 4 * n, 8, 2,
                         "NET/IB/0/GDRDMA"};
    if (n == 1)
      c.tensor_pct[2] = 67;
    write_case(paths[n], &c);
    struct gw_err err;
    assert_int_equal(gw_recording_load(paths[n], &recs[n], &err), GW_OK);
  }
  struct gw_recording *rec = gw_recording_merge_nodes(recs, 2);
  assert_int_equal(rec->ngpus, 8);
  assert_int_equal(rec->nnodes, 2);
  assert_int_equal(rec->nccl->nranks_seen, 8);
  struct gw_diagnosis *dx = NULL;
  struct gw_err err;
  assert_int_equal(gw_diagnose(rec, &dx, &err), GW_OK);
  const struct gw_multi_gpu *m = dx->multi;
  assert_non_null(m);
  assert_int_equal(m->ngpus, 8);
  assert_int_equal(m->nnodes, 2);
  assert_true(m->straggler >= 0);
  assert_string_equal(m->gpus[m->straggler].label, "node-b GPU 2");
  assert_int_equal(m->gpus[m->straggler].gpu, 6);
  assert_int_equal(m->gpus[m->straggler].rank, 6);
  assert_string_equal(m->gpus[0].label, "node-a GPU 0");
  assert_int_equal(m->gpus[5].rank, 5);
  assert_string_equal(m->gpus[5].transport, "NET/IB+GDR");
  assert_false(m->slow_transport);
  const struct gw_finding *f = support_finding(dx, "multi_gpu_sync");
  assert_non_null(f);
  assert_true(evidence_says(f, "node-b GPU 2 (NCCL rank 6)"));
  gw_diagnosis_free(dx);
  gw_recording_free(rec);
  unlink(paths[0]);
  unlink(paths[1]);
}

static void overlap_of_interval_lists(void **state) {
  (void)state;
  struct gw_interval a[] = {{0, 10}, {20, 30}, {40, 50}};
  struct gw_interval b[] = {{5, 25}, {45, 100}};
  assert_int_equal(gw_interval_overlap_ns(a, 3, b, 2), 5 + 5 + 5);
  assert_int_equal(gw_interval_overlap_ns(a, 3, NULL, 0), 0);
}

static const struct CMUnitTest tests[] = {
    cmocka_unit_test(parses_channel_lines),
    cmocka_unit_test(parses_setup_lines),
    cmocka_unit_test(summary_gives_advice_on_slow_paths),
    cmocka_unit_test(overlap_of_interval_lists),
    cmocka_unit_test(balanced_pair_is_healthy),
    cmocka_unit_test(straggler_is_named_with_its_cause),
    cmocka_unit_test(exposed_communication_is_found),
    cmocka_unit_test(one_gpu_has_no_summary),
    cmocka_unit_test(eight_ranks_on_two_nodes_merge),
};
SUPPORT_TEST_MAIN(tests, NULL, NULL)
