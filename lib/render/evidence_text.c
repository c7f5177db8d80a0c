/* The message table of the evidence ids: one row per id the rules emit
 * (lib/analysis/rule_*.c, diagnosis.c), its English message and the names
 * of the values in the order of its conversions. The messages keep the
 * conversions printf knows (%.1f, %d, %lld, %zu, %s and %n$ in translations);
 * gettext translates them, msgfmt --check compares the conversions of each
 * translation with its message. */
#include "evidence_text.h"
#include "render/message_table.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#include "core/i18n.h"
#include "render/label_text.h"

/* Units the message shows; see the value names in the rule that emits each id. */
static const struct gw_evidence_message messages[] = {
    /* input_pipeline */
    {"main_prepares_data",
     N_("no loader workers, and the training process ran above %.0f%% of one core on %.0f%% of samples while the GPU "
        "idled: it prepares batches itself"),
     {"cpu_threshold", "multicore_share"}},
    {"main_not_launching",
     N_("the training thread used %.1fx the CPU time of the autograd thread that launches the backward (launching "
        "alone stays under %.0fx), saturated on %.0f%% of samples: its core went to host work of its own, most likely "
        "making the batch in the loop"),
     {"ratio", "max", "saturated_share"}},
    {"host_busy_share",
     N_("%.0f%% of active time the training process kept a core busy while almost no kernel ran: host-side work, most "
        "likely preparing data (confirm with the fixed-batch test)"),
     {"share"}},
    {"steps_fetch_rhythm",
     N_("slow steps recur every %d steps, %d times, each %.2f s above a typical step, longer than the %.2f s of "
        "steps between them: the loop waits once per round of batches fetched in parallel"),
     {"period_steps", "count", "wait", "round"}},
    {"loop_blocks_each_step",
     N_("the loop's launching threads used %.2f of a core over its steps while the GPU sat idle %.0f%% of each "
        "%.1f ms step: the loop was blocked in every step on neither the GPU nor its own CPU work, in one process "
        "most likely the batch it fetches (from its own threads, a socket or a store)"),
     {"launch_cpu", "gpu_idle_share", "step"}},
    {"host_waits",
     N_("no loader worker or disk is saturated, but the GPU sits idle while the main process waits: the host side is "
        "the first suspect (confirm with the fixed-batch test)"),
     {0}},
    {"input_wait_share", N_("GPU idle and waiting for input %.0f%% of active time"), {"share"}},
    {"input_wait_share_sm",
     N_("GPU idle and waiting for input %.0f%% of active time; SM activity median %.1f%%"),
     {"share", "sm_active_median"}},
    {"loader_workers",
     N_("%.0f data-loader worker process(es); busiest worker median %.0f%% of one core; a worker saturated (>= %.0f%%) "
        "%.0f%% of the time"),
     {"workers", "busiest_worker_cpu_median", "saturated_cpu_threshold", "saturated_share"}},
    {"no_loader_workers", N_("no data-loader worker processes: all loading runs in the main process"), {0}},
    {"loader_workers_unmeasured",
     N_("%.0f data-loader worker process(es) at a time, each too short-lived for its CPU to be measured (a rate "
        "needs the same process in two host samples): workers started anew, each epoch or pass"),
     {"workers"}},
    {"main_process_waits",
     N_("main process median %.0f%% of one core (saturated %.0f%% of the time): it waits for data"),
     {"cpu_median", "saturated_share"}},
    {"main_process_cpu",
     N_("main process median %.0f%% of one core (saturated %.0f%% of the time)"),
     {"cpu_median", "saturated_share"}},
    {"disk_busy",
     N_("disk util p90 %.0f%%, busy (>= %.0f%%) %.0f%% of the time; iowait median %.1f%%"),
     {"util_p90", "busy_util_threshold", "busy_share", "iowait_median"}},
    {"gpu_shared_with_process",
     N_("GPU %d is shared with process %.0f (%s) outside the job: %.1f GiB of device memory, its kernels ran %.0f%% "
        "of the time by the driver's count, in %.0f%% of the process samples"),
     {"gpu", "pid", "name", "memory", "sm_share", "sample_share"}},
    {"gpu_shared_with_process_unnamed",
     N_("GPU %d is shared with process %.0f (name not recorded) outside the job: %.1f GiB of device memory, its "
        "kernels ran %.0f%% of the time by the driver's count, in %.0f%% of the process samples"),
     {"gpu", "pid", "memory", "sm_share", "sample_share"}},
    {"pcie_rx_high",
     N_("PCIe receive median %.1f GB/s while SM activity is low: host-to-device copies dominate"),
     {"rx_median"}},
    {"sm_falls_with_worker_cpu", N_("SM activity falls when worker CPU rises (correlation %.2f)"), {"correlation"}},
    {"loader_workers_room",
     N_("%.0f loader worker(s) on %d physical cores: about %d would use half the cores"),
     {"workers", "physical_cores", "suggested_workers"}},
    {"loader_workers_enough",
     N_("%.0f loader worker(s) on %d physical cores: already half the cores or more (%d), so more workers will not "
        "help; find what each worker waits on (storage, decode)"),
     {"workers", "physical_cores", "half_cores"}},
    {"data_wait_share",
     N_("the training loop waited for the DataLoader %.0f%% of its step time (%zu steps measured inside the program)"),
     {"share", "steps"}},
    /* measured from the training thread's samples (analysis/idle_attribution.c) */
    {"idle_cause_measured",
     N_("the GPU sat idle %.0f%% of its time while the training thread was %s (%s): %.0f%% of its idle time"),
     {"share", "activity", "frame", "idle_share"}},
    {"sync_every_step",
     N_("the training loop waited in a synchronizing call %.0f%% of its typical step (%.2f ms of %.2f ms): each wait "
        "empties the GPU's queue, so the launches after it find the GPU idle"),
     {"share", "sync", "step"}},
    {"launch_steps_new_shapes",
     N_("%.0f of the %.0f steps met an input shape not seen before (%.0f shapes): on a new shape the launching thread "
        "also picks and tunes kernels and allocates memory, which its stack samples cannot tell from launching; one "
        "run "
        "with a fixed shape (pad or bucket the inputs) would tell them apart"),
     {"first_visits", "steps", "shapes"}},
    {"launch_step_too_long",
     N_("the loop finished %.0f step(s), %.1f s a step: a launch costs the host microseconds, so a step that long is "
        "paced by other host work in the model's forward and backward; a kernel trace (record --trace) counts the "
        "launches"),
     {"steps", "step"}},
    {"idle_data_wait_workers",
     N_("during those waits the %.0f loader worker(s) were running %.0f%%, asleep on the network %.0f%%, on the disk "
        "%.0f%%, on a pipe %.0f%%, otherwise asleep %.0f%%, absent %.0f%% of the time"),
     {"workers", "running", "net", "disk", "pipe", "other_sleep", "absent"}},
    {"data_wait_gpu_idle",
     N_("the GPU sat idle %.0f%% of its active time while the loop waited for the DataLoader"),
     {"share"}},

    /* power, shared by several classes */
    {"power_median", N_("power median %.0f W of %.0f W (%.0f%%)"), {"power_median", "power_limit", "power_share"}},
    {"power_below_limit",
     N_("power median %.0f W of %.0f W (%.0f%%): below the limit, so the GPU has power to spare"),
     {"power_median", "power_limit", "power_share"}},
    {"power_near_idle",
     N_("power median %.0f W of %.0f W (%.0f%%): near idle"),
     {"power_median", "power_limit", "power_share"}},
    {"power_moderate",
     N_("power median %.0f W of %.0f W (%.0f%%): moderate"),
     {"power_median", "power_limit", "power_share"}},

    /* small_batch */
    {"math_pipe_fill",
     N_("GPU %d: GPU-Util median %.0f%%, SM activity %.0f%%, but the busiest math pipe (tensor/FP32/FP16) only %.0f%%: "
        "%.2f of the active SM time does arithmetic, SMs wait on memory latency"),
     {"gpu", "util_median", "sm_active_median", "math_pipe_median", "math_fill"}},
    {"nccl_keeps_sm_active",
     N_("GPU %d spends %.0f%% of its traced time in NCCL kernels, which keep SMs active with the math pipes idle; over "
        "the rest of the time the math pipes fill %.2f of the active SM time"),
     {"gpu", "nccl_share", "math_fill_outside_nccl"}},
    {"sm_per_util_low",
     N_("GPU %d: GPU-Util median %.0f%% but SM activity only %.0f%% (%.2f of util): kernels resident with most SMs "
        "empty"),
     {"gpu", "util_median", "sm_active_median", "sm_per_util"}},
    {"per_parameter_work",
     N_("GPU %d: %.0f%% of the traced kernel time updates every parameter once a step (optimizer, gradient clipping), "
        "work that does not grow with the batch: doubling the batch would raise samples/s by at least %.0f%%"),
     {"gpu", "share", "doubling_gain_min"}},
    {"doubling_from_waves",
     N_("GPU %d: from the kernels' launch configurations (blocks against what the SMs hold at once) and the "
        "per-parameter work, doubling the batch would raise samples/s by about %.0f%% (an upper estimate)"),
     {"gpu", "doubling_gain"}},
    {"sm_occupancy", N_("SM occupancy median %.0f%%: few warps per SM"), {"occupancy_median"}},
    {"memory_room", N_("device memory %.0f%% used at the peak: room for a larger batch"), {"used_share"}},
    {"memory_tight", N_("device memory %.0f%% used at the peak: little room to grow the batch"), {"used_share"}},
    {"main_process_not_limit",
     N_("main process median %.0f%% of one core, yet kernels fill the SMs when they run: launches are not the main "
        "limit"),
     {"cpu_median"}},

    /* launch_overhead */
    {"kernels_too_small",
     N_("GPU-Util median %.0f%% while SM activity is %.2f%% (%.3f of util): kernels too small to occupy the GPU"),
     {"util_median", "sm_active_median", "sm_per_util"}},
    {"main_process_threads",
     N_("main process median %.0f%% of one core; the threads launching kernels saturated %.0f%% of the time; %.0f "
        "thread(s) running"),
     {"cpu_median", "saturated_share", "threads_running"}},
    {"short_launch_gaps",
     N_("traced: %.0f%% of active time in gaps shorter than %.0f us between kernels"),
     {"share", "gap_max"}},
    {"host_issue_gaps",
     N_("traced: %.0f%% of active time in longer gaps while the host kept making CUDA calls (never quiet for %.1f ms): "
        "it could not issue kernels as fast as the GPU ran them"),
     {"share", "quiet_max"}},
    {"window_gaps",
     N_("trace windows (%.2f s of GPU work): %.0f%% of the time idle after a synchronizing call (synchronize, "
        ".item(), a blocking copy) drained the queue, %.0f%% in launch gaps while the host kept making CUDA calls"),
     {"span", "sync_share", "launch_share"}},
    {"sync_gaps",
     N_("traced: %.0f%% of active time in %lld gaps that opened while the host waited in a synchronizing call "
        "(synchronize, .item(), a blocking copy) and closed when it launched again"),
     {"share", "gaps"}},

    /* multi_gpu_sync */
    {"straggler_rank",
     N_("%s (NCCL rank %d) is the straggler: the other ranks wait for it in every collective"),
     {"label", "rank"}},
    {"straggler", N_("%s is the straggler: the other GPUs wait for it in every collective"), {"label"}},
    {"sm_spread",
     N_("SM activity median %.0f%% on %s against %.0f%% on %s: a spread of %.0f points, more than 10 (GPU-Util %.0f%% "
        "vs %.0f%% does not show it)"),
     {"high_sm_active_median", "high_label", "low_sm_active_median", "low_label", "spread", "high_util_median",
      "low_util_median"}},
    {"tensor_clock_spread",
     N_("tensor activity %.0f%% on %s against %.0f%% on %s; SM clock %.0f MHz against %.0f MHz"),
     {"high_tensor_median", "high_label", "low_tensor_median", "low_label", "high_sm_clock_median",
      "low_sm_clock_median"}},
    {"clock_spread",
     N_("SM clock median %.0f MHz on %s, %.0f MHz on %s"),
     {"high_sm_clock_median", "high_label", "low_sm_clock_median", "low_label"}},
    {"nccl_wait_spread",
     N_("NCCL kernels take %.0f%% of %s's traced time against %.0f%% on %s: the difference is waiting"),
     {"waiting_nccl_share", "waiting_label", "straggler_nccl_share", "straggler_label"}},
    {"straggler_more_work",
     N_("%s does about %.0f%% more work per second than its peers (math-pipe activity x SM clock): its share of the "
        "data or model is larger"),
     {"label", "extra_work"}},
    {"straggler_low_clock",
     N_("%s runs its SM clock at %.0f%% of its peers' (%.0f MHz) for the same work: a lower power limit or the power "
        "cap slows this card"),
     {"label", "clock_ratio", "sm_clock_median"}},
    {"straggler_throttled",
     N_("%s is held back by thermal or hardware slowdown on %.0f%% of its loaded time"),
     {"label", "throttled_share"}},
    {"straggler_input",
     N_("%s waits for input %.0f points of its active time more than its peers: its data loader is the slow part"),
     {"label", "input_wait_excess"}},
    {"straggler_shared_gpu", N_("%s is shared with another process (%.0f processes at once)"), {"label", "processes"}},
    {"comm_overlap",
     N_("%.0f%% of NCCL kernel time runs alongside compute; the rest, %.0f%% of the traced time, is exposed "
        "communication"),
     {"overlap_share", "exposed_share"}},
    {"shared_dips", N_("all GPUs dip at the same moments for %.0f%% of the time: they stop together"), {"share"}},
    {"nccl_slow_path", N_("the NCCL log shows a slow path: %s"), {"transports"}},
    {"peer_wait_share", N_("%.0f%% of all GPUs' active time spent waiting on peers"), {"share"}},

    /* hardware_env */
    {"xid_errors", N_("GPU %d: %d Xid error(s) in the kernel log"), {"gpu", "xid_errors"}},
    {"ecc_errors",
     N_("GPU %d: uncorrected ECC errors %d, row remap pending %d, remap failed %d"),
     {"gpu", "uncorrected_errors", "remap_pending", "remap_failed"}},
    {"pstate_under_load",
     N_("GPU %d: P-state P%d under load on %.0f%% of loaded time (expected P0)"),
     {"gpu", "pstate", "share"}},
    {"clock_throttled",
     N_("GPU %d: thermal or hardware slowdown / power brake on %.0f%% of loaded time; SM clock median %.0f of %.0f "
        "MHz"),
     {"gpu", "share", "sm_clock_median", "sm_clock_max"}},
    {"power_limit_lowered",
     N_("GPU %d: power limit %.0f W, below the default %.0f W"),
     {"gpu", "power_limit", "power_default"}},
    {"pcie_degraded",
     N_("GPU %d: PCIe link at gen %.0f x%.0f under load, below its maximum"),
     {"gpu", "link_gen", "link_width"}},
    {"on_battery", N_("the host ran on battery"), {0}},
    {"governor_powersave", N_("CPU frequency governor is powersave while the run is host-bound"), {0}},

    /* schedule_shape */
    {"host_optimizer_phase",
     N_("GPU %d idled %.0f%% of active time while the training process ran CPU work on a median %.0f%% of one core, "
        "with PCIe traffic both ways (%.2f GB/s in, %.2f GB/s out: gradients down, parameters back): an optimizer in "
        "host memory, its update once per optimizer step"),
     {"gpu", "share", "cpu_median", "rx_median", "tx_median"}},
    {"periodic_dips_steps",
     N_("GPU %d: activity dips every %.1f s (about every %.0f steps), autocorrelation %.2f"),
     {"gpu", "period", "period_steps", "autocorrelation"}},
    {"periodic_dips",
     N_("GPU %d: activity dips every %.1f s, autocorrelation %.2f"),
     {"gpu", "period", "autocorrelation"}},
    {"dip_time",
     N_("%.0f%% of active ticks are in a dip; %.0f%% of active GPU time lost in them"),
     {"dip_tick_share", "lost_share"}},
    {"dip_time_bounded",
     N_("%.0f%% of active ticks are in a dip, %.0f%% of active GPU time lost in them; the loop's own steps spent "
        "%.0f%% of their time above the median step, the most a schedule can have cost"),
     {"dip_tick_share", "lost_share", "steps_excess"}},
    {"checkpoint_stall",
     N_("%.0f%% of active time the GPU idled while the training process was busy and wrote %.0f MB/s to disk "
        "(%.1f MB/s otherwise): saving a checkpoint"),
     {"share", "write_in_dips", "write_otherwise"}},
    {"dip_disk_writes_checkpoint",
     N_("disk writes %.1f MB/s during dips against %.1f MB/s otherwise: checkpoints or logs"),
     {"write_in_dips", "write_otherwise"}},
    {"dip_disk_writes",
     N_("disk writes %.1f MB/s during dips against %.1f MB/s otherwise"),
     {"write_in_dips", "write_otherwise"}},
    {"memory_churn",
     N_("GPU %d: device memory rose %d and fell %d times (%.0f changes a minute): allocations differ from step to "
        "step, the mark of changing input shapes"),
     {"gpu", "rises", "falls", "changes_per_min"}},
    {"shape_replanning_shared",
     N_("%.0f%% of active time the training process was busy on one core while almost no kernel ran: re-planning for "
        "new shapes (cudnn.benchmark searches, allocator, recompiles); the process also prepares its own data, so part "
        "of it is input"),
     {"share"}},
    {"shape_replanning",
     N_("%.0f%% of active time the training process was busy on one core while almost no kernel ran: re-planning for "
        "new shapes (cudnn.benchmark searches, allocator, recompiles)"),
     {"share"}},
    {"steps_marked",
     N_("%d steps (marked by the program): median %.3f s, p90/p50 %.2f, CV %.2f"),
     {"steps", "step_median", "p90_over_p50", "cv"}},
    {"steps_estimated",
     N_("%d steps (estimated from GPU activity): median %.3f s, p90/p50 %.2f, CV %.2f"),
     {"steps", "step_median", "p90_over_p50", "cv"}},
    {"steps_marked_no_period",
     N_("%d steps (marked by the program): median %.3f s, p90/p50 %.2f, CV %.2f, with no fixed period"),
     {"steps", "step_median", "p90_over_p50", "cv"}},
    {"steps_estimated_no_period",
     N_("%d steps (estimated from GPU activity): median %.3f s, p90/p50 %.2f, CV %.2f, with no fixed period"),
     {"steps", "step_median", "p90_over_p50", "cv"}},
    {"helper_threads_busy",
     N_("threads of the training process that launch no kernels used %.2f of a core (median) while the GPU sat idle "
        "for no measured reason %.0f%% of active time: in a Python program such a thread takes the interpreter lock "
        "from the thread that launches the kernels"),
     {"core", "idle_share"}},
    /* schedule_shape, from the Python hook's compile times and input shapes */
    {"recompile_time",
     N_("torch.compile recompiled %d time(s) during the steps, for %.1f s: %.0f%% of the step time (%.1f s compiling "
        "in all)"),
     {"recompiles", "recompile_time", "share", "compile_time"}},
    {"compile_time_later",
     N_("torch.compile ran %.1f s during the steps after the first step that compiled: %.0f%% of the step time"),
     {"compile_time", "share"}},
    {"recompile_reason", N_("dynamo's reason for the first recompilation: %s"), {"reason"}},
    {"shape_first_visits",
     N_("%d distinct input shapes; %d steps were the first of their shape and took %.1f s more than steps of shapes "
        "seen before (median %.3f s): %.0f%% of the step time"),
     {"shapes", "first_visits", "excess", "revisit_median", "share"}},
    {"shape_first_visits_only",
     N_("%d distinct input shapes and no shape came back: %d steps were each the first of their shape, %.0f%% of the "
        "step time"),
     {"shapes", "first_visits", "share"}},
    {"periodic_slow_steps",
     N_("slow steps recur every %d steps (about every %.1f s), %d times, and took %.1f s more than the median step; "
        "in them the training thread was mostly %s (%s)"),
     {"period_steps", "period", "count", "extra", "activity", "frame"}},
    {"periodic_slow_steps_no_frame",
     N_("slow steps recur every %d steps (about every %.1f s), %d times, and took %.1f s more than the median step; "
        "in them the training thread was mostly %s"),
     {"period_steps", "period", "count", "extra", "activity"}},
    {"periodic_slow_steps_unsampled",
     N_("slow steps recur every %d steps (about every %.1f s), %d times, and took %.1f s more than the median step"),
     {"period_steps", "period", "count", "extra"}},
    {"step_time_follows_shape",
     N_("the step time follows the input shape: %d shapes explain %.0f%% of the step time's variance (correlation "
        "with the element count %.2f, step-time CV %.2f)"),
     {"shapes", "explained", "correlation", "cv"}},
    {"slowest_shapes_1", N_("slowest first visit: shape %s, %.1f s"), {"shape_1", "first_1"}},
    {"slowest_shapes_2",
     N_("slowest first visits: shape %s %.1f s, %s %.1f s"),
     {"shape_1", "first_1", "shape_2", "first_2"}},
    {"slowest_shapes_3",
     N_("slowest first visits: shape %s %.1f s, %s %.1f s, %s %.1f s"),
     {"shape_1", "first_1", "shape_2", "first_2", "shape_3", "first_3"}},

#ifdef GW_EXTRA_EVIDENCE_MESSAGES
/* Test builds only: the messages of the test-only class (tests/rule7/). */
#include GW_EXTRA_EVIDENCE_MESSAGES
#endif
};

GW_MESSAGE_TABLE_ACCESSORS(struct gw_evidence_message, messages, gw_evidence_messages, gw_evidence_message_find)

/* Appends to out like snprintf at out + *len: the text is cut at cap - 1,
 * at a character's edge (a cut inside a UTF-8 sequence would leave invalid
 * UTF-8, in JSON above all), and nothing is added after a cut. */
struct sink {
  char *out;
  size_t cap, len;
  int full;
};

static void put(struct sink *s, const char *p, size_t n) {
  if (s->cap == 0 || s->full)
    return;
  size_t room = s->cap - 1 - s->len;
  if (n > room) {
    n = room;
    while (n > 0 && ((unsigned char)p[n] & 0xC0) == 0x80)
      n--; /* back to the first byte of the character the cut falls in */
    s->full = 1;
  }
  memcpy(s->out + s->len, p, n);
  s->len += n;
  s->out[s->len] = '\0';
}

/* A value's number as the sentence shows it: a fraction as a percentage. */
static double shown(const struct gw_evidence_value *v) {
  return v->unit == GW_UNIT_FRACTION ? v->number * 100 : v->number;
}

static void format_message(struct sink *s, const char *msg, const struct gw_evidence_message *row,
                           gw_message_find_fn find, const struct gw_evidence *e, int translate, int depth);

/* One conversion of the message, spec (its flags, width and precision, with
 * the length modifier dropped) and conv the conversion letter. */
static void convert(struct sink *s, const char *spec, char conv, const struct gw_evidence *e, const char *name,
                    gw_message_find_fn find, int translate, int depth) {
  char fmt[32], buf[GW_EVIDENCE_VALUE_TEXT + 64];
  const struct gw_evidence_value *v = name ? gw_evidence_value(e, name) : NULL;
  int n = -1;
  /* The spec comes from the message table or its translation, which msgfmt
   * --check held to the same conversions; the argument's type follows conv. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
  if (conv == 's') {
    char clause[GW_EVIDENCE_VALUE_TEXT] = "";
    const char *text = !v ? "?"
                       : v->unit == GW_UNIT_PHRASE
                           ? (translate ? _(gw_phrase_msgid(v->text)) : gw_phrase_msgid(v->text))
                       : v->unit == GW_UNIT_TEXT   ? v->text
                       : v->unit == GW_UNIT_CLAUSE ? clause
                                                   : NULL;
    if (v && v->unit == GW_UNIT_CLAUSE && v->text[0]) {
      /* one level only: a clause naming a clause shows "?", never loops */
      const struct gw_evidence_message *row = depth == 0 && find ? find(v->text) : NULL;
      struct sink sub = {clause, sizeof clause, 0, 0};
      if (row)
        format_message(&sub, translate ? _(row->msgid) : row->msgid, row, find, e, translate, depth + 1);
      else
        put(&sub, "?", 1);
    }
    char num[64];
    if (!text) { /* a number where the message asks for text: shown as a number */
      snprintf(num, sizeof num, "%g", shown(v));
      text = num;
    }
    snprintf(fmt, sizeof fmt, "%ss", spec);
    n = snprintf(buf, sizeof buf, fmt, text);
  } else {
    double x = !v && name && strcmp(name, "gpu") == 0 ? e->gpu : v ? shown(v) : NAN;
    if (conv == 'd' || conv == 'i' || conv == 'u') {
      snprintf(fmt, sizeof fmt, "%sll%c", spec, conv == 'u' ? 'u' : 'd');
      if (isnan(x))
        n = snprintf(buf, sizeof buf, "?");
      else if (conv == 'u')
        n = snprintf(buf, sizeof buf, fmt, (unsigned long long)x);
      else
        n = snprintf(buf, sizeof buf, fmt, (long long)x);
    } else {
      snprintf(fmt, sizeof fmt, "%s%c", spec, conv);
      n = snprintf(buf, sizeof buf, fmt, x);
    }
  }
#pragma GCC diagnostic pop
  if (n > 0)
    put(s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
}

/* Writes msg with the values of e in the order of row's names. */
static void format_message(struct sink *s, const char *msg, const struct gw_evidence_message *row,
                           gw_message_find_fn find, const struct gw_evidence *e, int translate, int depth) {
  int next = 0; /* the next argument without a position */
  for (const char *p = msg; *p;) {
    const char *pct = strchr(p, '%');
    if (!pct) {
      put(s, p, strlen(p));
      break;
    }
    put(s, p, (size_t)(pct - p));
    p = pct + 1;
    if (*p == '%') {
      put(s, "%", 1);
      p++;
      continue;
    }
    int arg = -1;
    const char *q = p;
    int pos = 0;
    while (*q >= '0' && *q <= '9')
      pos = pos * 10 + (*q++ - '0');
    if (*q == '$' && q > p) { /* %n$: a translation's own order */
      arg = pos - 1;
      p = q + 1;
    }
    char spec[24] = "%";
    size_t sl = 1;
    while (*p && strchr("-+ #0123456789.'", *p) && sl + 1 < sizeof spec)
      spec[sl++] = *p++;
    spec[sl] = '\0';
    while (*p && strchr("hlLqjzt", *p)) /* the length modifier: convert picks the type */
      p++;
    if (!*p)
      break;
    char conv = *p++;
    if (arg < 0)
      arg = next++;
    const char *name = row && arg >= 0 && arg < GW_EVIDENCE_MAX_VALUES ? row->args[arg] : NULL;
    convert(s, spec, conv, e, name, find, translate, depth);
  }
}

void gw_message_text(const struct gw_evidence_message *row, gw_message_find_fn find, const struct gw_evidence *e,
                     int translate, char *out, size_t cap) {
  struct sink s = {out, cap, 0, 0};
  if (cap)
    out[0] = '\0';
  if (row) {
    format_message(&s, translate ? _(row->msgid) : row->msgid, row, find, e, translate, 0);
    return;
  }
  /* an id without a row: still say what it saw */
  put(&s, e->id ? e->id : "evidence", strlen(e->id ? e->id : "evidence"));
  for (int i = 0; i < e->nvalues; i++) {
    char buf[GW_EVIDENCE_VALUE_TEXT + 64];
    const struct gw_evidence_value *v = &e->values[i];
    int n = v->unit == GW_UNIT_TEXT || v->unit == GW_UNIT_PHRASE || v->unit == GW_UNIT_CLAUSE
                ? snprintf(buf, sizeof buf, "%s %s=%s", i ? "," : ":", v->name, v->text)
                : snprintf(buf, sizeof buf, "%s %s=%g %s", i ? "," : ":", v->name, v->number, gw_unit_name(v->unit));
    if (n > 0)
      put(&s, buf, (size_t)n < sizeof buf ? (size_t)n : sizeof buf - 1);
  }
}

void gw_evidence_text(const struct gw_evidence *e, int translate, char *out, size_t cap) {
  gw_message_text(gw_evidence_message_find(e->id), gw_evidence_message_find, e, translate, out, cap);
}
