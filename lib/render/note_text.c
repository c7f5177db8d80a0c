/* The message table of the notes, interpretation lines and experiments the
 * diagnosis records as ids and values (lib/analysis/diagnosis.c, and the
 * report of several nodes in report_file.c): one row per id, its English
 * message and the names of the values in the order of its conversions,
 * worded by evidence_text.c's formatter. A "gpu" the note does not carry as
 * a value is the note's GPU. */
#include "note_text.h"
#include "render/message_table.h"

#include <string.h>

#include "core/i18n.h"

static const struct gw_evidence_message messages[] = {
    /* notes: what the recording lacks or how a number was made */
    {"gpu_never_active", N_("GPU %d never became active during the recording."), {"gpu"}},
    {"xid_before_recording",
     N_("GPU %d: the kernel log holds %d Xid error(s) from before this recording (the last, Xid %d, %.0f s before it "
        "began): not counted against this run; the GPU's error counters sampled during the run show a fault that "
        "lasts."),
     {"gpu", "xid_errors", "last_xid", "before_start"}},
    {"xid_program_faults",
     N_("GPU %d: %d program fault Xid(s) during the recording (the first, Xid %d): a kernel raised an exception or "
        "touched memory it does not own, or a program was killed; a bug to find with compute-sanitizer, not a "
        "hardware fault."),
     {"gpu", "xid_faults", "first_xid"}},
    {"sm_from_launch_config",
     N_("GPU %d: SM activity is estimated from the traced kernels' launch configurations (grid, block, registers, "
        "shared memory against the GPU's limits), not measured by GPM: an upper bound that cannot see blocks "
        "finishing unevenly (on the H200 it read within 6 points of GPM per second on all 25 scenarios, within 8 over "
        "their busy seconds; one earlier run of one scenario read 10.6)."),
     {"gpu"}},
    {"sm_from_pm_sampling",
     N_("GPU %d: SM activity is measured inside the program by CUPTI PM sampling, not by GPM (on the H200 within half "
        "a point of GPM per second on 25 scenarios, start-up seconds included; within 1.1 points over their busy "
        "seconds once GPM's own lag of up to 0.2 s is allowed for)."),
     {"gpu"}},
    {"sm_from_dcgm",
     N_("GPU %d: SM activity, occupancy, tensor and DRAM activity come from DCGM's profiling fields (its host engine), "
        "not from GPM."),
     {"gpu"}},
    {"sm_missing_from_recording",
     N_("GPU %d: SM activity is unavailable: the recording holds no GPM readings, although the %s has GPM (an import "
        "carries none; the recorder may have been refused them). GPU-Util stands in for it, which cannot see "
        "underfilled kernels, so confidences are lowered."),
     {"gpu", "gpu_name"}},
    {"sm_missing_no_gpm",
     N_("GPU %d: SM activity is unavailable (no GPM on this GPU or driver): GPU-Util stands in for it, which cannot "
        "see underfilled kernels, so confidences are lowered."),
     {"gpu"}},
    {"startup_and_tail",
     N_("GPU %d: the first %.1f s, before the GPU first worked or the training loop's first step ended (imports, model "
        "build, compilation, warm-up), and %.1f s after the last work are counted as startup, warm-up and tail, not "
        "blamed on a class."),
     {"gpu", "head", "tail"}},
    {"finding_overlapped",
     N_("%s: its own signals put %.0f%% of the active time on it, but %.0f%% of that is the same lost time the "
        "findings ranked above it already hold; each lost second is counted once, so it shows %.0f%%."),
     {"class", "own_share", "overlap_share", "shown_share"}},
    {"finding_overlapped_unlisted",
     N_("%s: its own signals put %.0f%% of the active time on it, but the findings ranked above it already hold that "
        "lost time (%.1f%% of the active time is left to it, under the %.0f%% a class needs), so it is not listed; "
        "each lost second is counted once."),
     {"class", "own_share", "left_share", "min_share"}},
    {"class_not_measurable",
     N_("%s cannot be judged from this recording: its rule reads %s, and the recording holds none of it."),
     {"class", "needs"}},
    {"pattern_visible_max",
     N_("%s: a stall that recurs less often than every %.1f s (half of the %.1f s steady run) cannot be told from a "
        "one-off pause in this recording; a longer recording would show it."),
     {"class", "period_max", "span"}},
    {"shared_with_process",
     N_("GPU %d was shared with process %lld (%s), which is not part of the recorded job (seen in %.0f%% of the GPU's "
        "process samples%s%s): its kernels take SM time from the job."),
     {"gpu", "pid", "name", "sample_share", "memory_clause", "sm_clause"}},
    {"shared_with_process_unnamed",
     N_("GPU %d was shared with process %lld, which is not part of the recorded job (seen in %.0f%% of the GPU's "
        "process samples%s%s): its kernels take SM time from the job; its name is not recorded (ps -p %lld)."),
     {"gpu", "pid", "sample_share", "memory_clause", "sm_clause", "pid"}},
    /* clauses of the two above: empty where the driver did not say */
    {"shared_process_memory", N_(", %.1f GiB of device memory"), {"memory"}},
    {"shared_process_sm", N_(", %.0f%% of SM time by the driver's count"), {"sm_share"}},
    {"ranks_elsewhere",
     N_("The recorded environment says WORLD_SIZE=%d but this file holds %d GPU(s): the other ranks ran elsewhere. "
        "Time this GPU waited on them shows as communication or idle time here, and a straggler among them cannot be "
        "named from this file alone (record every node and pass all files to gpuwhy report)."),
     {"world_size", "gpus"}},
    {"ledger_estimated_trace_windows",
     /* TRANSLATORS: "idle: sync" is the ledger row of that name: use its translation. */
     N_("The ledger is estimated from sampled counters, because the kernel trace covers only its sampled windows: rows "
        "are shares of each sample interval, and idle: sync over the whole run needs `gpuwhy record --trace=full` to "
        "be seen."),
     {0}},
    {"ledger_estimated",
     /* TRANSLATORS: "idle: sync" is the ledger row of that name: use its translation. */
     N_("The ledger is estimated from sampled counters (no kernel timeline): rows are shares of each sample interval, "
        "and idle: sync needs `gpuwhy record --trace` to be seen."),
     {0}},
    {"trace_without_launch_calls",
     /* TRANSLATORS: "idle: other" and "idle: launch" are ledger rows: use their translations. */
     N_("The kernel trace holds no kernel launch calls (traced with GPUWHY_TRACE_API=nolaunch, or an import without "
        "them): a longer gap through which the host only launched kernels counts as idle: other, so idle: launch may "
        "be low."),
     {0}},
    {"trace_windows_counters_used",
     N_("The kernel trace was sampled in windows; the ledger uses the counters, which cover the whole run."),
     {0}},
    {"tracer_stood_aside",
     N_("gpuwhy's tracer stood aside for another CUPTI client (torch.profiler, Nsight) %d time(s), first at %.1f s, "
        "%.1f s in all: that tool got the kernels then, and the trace has none."),
     {"times", "first", "total"}},
    {"new_shapes_undecided",
     N_("%.0f of the %.0f steps met an input shape not seen before (%.0f shapes): such a step's host time is planning, "
        "tuning and allocating for the new shape as much as making its batch, which this recording cannot tell apart; "
        "one run with a fixed shape (pad or bucket the inputs) would decide."),
     {"first_visits", "steps", "shapes"}},
    {"demand_limited",
     N_("Demand-limited: %.0f%% of the active time was lost, but the program ran no training step and no DataLoader "
        "(the Python hook saw neither), had no loader workers, used a median %.0f%% of one core and read no disk: the "
        "GPU waited for work that had not arrived (a server between requests), not on the program."),
     {"lost_share", "cpu_median"}},
    {"no_host_samples", N_("No host samples: loader, launch and disk signals are unknown."), {0}},
    {"target_not_sampled", N_("The target process was not sampled: launch and loader signals are weaker."), {0}},
    {"no_gpu_data", N_("No GPU data: %s"), {"reason"}},
    {"nodes_reported_together",
     N_("%d recordings reported together, one per node: GPUs are numbered one after another; host signals (CPU, "
        "loader workers, disk) and step times are those of the first recording."),
     {"recordings"}},

    /* interpretation: how to read the raw numbers; one whole sentence per
     * case, so a translation can reorder it */
    {"util_below_sm",
     N_("GPU %d: GPU-Util median %.0f%% against SM activity %.1f%%: SM activity is higher because GPU-Util is a point "
        "reading at each tick and SM activity an average over its window: the GPU works in short bursts between "
        "readings. Read the work from SM activity."),
     {"gpu", "util_median", "sm_active_median"}},
    {"util_wildly_overstates",
     N_("GPU %d: GPU-Util median %.0f%% against SM activity %.1f%%: GPU-Util wildly overstates the work: a kernel is "
        "resident but almost no SM is busy."),
     {"gpu", "util_median", "sm_active_median"}},
    {"util_overstates",
     N_("GPU %d: GPU-Util median %.0f%% against SM activity %.1f%%: GPU-Util overstates the work: resident kernels "
        "leave many SMs empty."),
     {"gpu", "util_median", "sm_active_median"}},
    {"util_sm_agree",
     N_("GPU %d: GPU-Util median %.0f%% against SM activity %.1f%%: GPU-Util and SM activity agree."),
     {"gpu", "util_median", "sm_active_median"}},
    {"util_only",
     N_("GPU %d: GPU-Util median %.0f%% only says a kernel was resident, not how much of the GPU worked."),
     {"gpu", "util_median"}},
    {"power_not_working",
     N_("GPU %d: power median %.0f W of a %.0f W limit (%.0f%%): the GPU is not really working."),
     {"gpu", "power_median", "power_limit", "power_share"}},
    {"power_at_limit",
     N_("GPU %d: power median %.0f W of a %.0f W limit (%.0f%%): at its power limit: working as hard as it can."),
     {"gpu", "power_median", "power_limit", "power_share"}},
    {"power_moderate_load",
     N_("GPU %d: power median %.0f W of a %.0f W limit (%.0f%%): a moderate load."),
     {"gpu", "power_median", "power_limit", "power_share"}},
    {"pstate_p0", N_("GPU %d: P-state P0 (fastest) under load."), {"gpu"}},
    {"pstate_above_p0",
     N_("GPU %d: P-state above P0: the driver holds the GPU in a slower state under load."),
     {"gpu"}},
    {"power_cap_not_fault",
     N_("GPU %d: SW power cap on %.0f%% of loaded time, SM clock %.0f of %.0f MHz: the physical limit of the board, "
        "not a fault."),
     {"gpu", "power_cap_share", "sm_clock_median", "sm_clock_max"}},
    {"pcie_rx_frequent",
     N_("GPU %d: PCIe receive median %.2f GB/s: frequent host-to-device copies."),
     {"gpu", "rx_median"}},
    {"pcie_rx_low", N_("GPU %d: PCIe receive median %.2f GB/s: low, copies are not the limit."), {"gpu", "rx_median"}},
    {"memory_peak_tight",
     N_("GPU %d: %.0f%% of device memory used at the peak: less than the 20-30%% headroom worth keeping."),
     {"gpu", "peak_share"}},
    {"memory_peak_room",
     N_("GPU %d: %.0f%% of device memory used at the peak: room for a larger batch (keep 20-30%% headroom)."),
     {"gpu", "peak_share"}},
    {"memory_peak_healthy",
     N_("GPU %d: %.0f%% of device memory used at the peak: healthy headroom."),
     {"gpu", "peak_share"}},

    /* experiments: why each command would decide */
    {"experiment_fixed_batch",
     N_("runs CMD as it is, then with each DataLoader replaying its first batches from memory: a clear speed-up means "
        "the input side is the cause"),
     {0}},
    {"experiment_batch_sweep", N_("throughput that rises with the batch means the work per kernel is too small"), {0}},
    {"experiment_pm_sampling_no_gpm",
     N_("this GPU has no GPM: PM sampling measures the SMs' active cycles from inside the program (GPUs from Turing "
        "on), which GPU-Util cannot"),
     {0}},
    {"experiment_pm_sampling_no_readings",
     N_("the recording holds no GPM readings: PM sampling measures the SMs' active cycles from inside the program "
        "(GPUs from Turing on), which GPU-Util cannot"),
     {0}},
    {"experiment_launch_config",
     N_("where PM sampling is refused: the traced kernels' launch configurations show how full the SMs were"),
     {0}},
    {"experiment_trace_splits_idle",
     N_("the kernel timeline splits the lost time into launch gaps, syncs, communication and waits for input, which "
        "the counters cannot tell apart"),
     {0}},
    {"experiment_sample_threads",
     N_("samples where each thread of the job was and the training thread's Python stack, which this recording "
        "lacks: they name what the loop waited for in each step (a fetch, a lock, a sleep)"),
     {0}},
    {"experiment_trace_launch",
     N_("counts kernels per step and the gaps between them, which settles launch overhead"),
     {0}},
    {"experiment_try_fixes",
     N_("runs the recorded command as it is and with each fix the findings point to, applied by the Python hook with "
        "no edit to the script; each gain measured against its prediction"),
     {0}},
    {"experiment_try_first_fix", N_("the first of these fixes alone, measured against the command as it is"), {0}},
};

GW_MESSAGE_TABLE_ACCESSORS(struct gw_evidence_message, messages, gw_note_messages, gw_note_message_find)

void gw_note_text(const struct gw_evidence *note, int translate, char *out, size_t cap) {
  gw_message_text(gw_note_message_find(note->id), gw_note_message_find, note, translate, out, cap);
}

void gw_note_id_text(const char *id, int translate, char *out, size_t cap) {
  struct gw_evidence e;
  memset(&e, 0, sizeof e);
  e.id = id;
  e.gpu = -1;
  gw_note_text(&e, translate, out, cap);
}
