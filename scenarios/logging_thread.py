"""none at the default share: a training loop with a metrics-logging helper thread.

The healthy transformer (scenarios/healthy.py's model, bf16 autocast, data
made on the GPU) trains as usual, while a helper thread of the same process
wakes every 100 ms and spends a fixed share of a core (15% by default,
measured with its own thread CPU clock) building metric records, serialising
them to JSON and appending them to a file, as a metrics uploader or a
logger's background thread does.  It never touches the GPU: the loss reaches
it through a pinned host copy the main thread makes without waiting, and its
work is cut into small pieces that hand the interpreter lock back between
them.  Yet the helper runs Python, so while it runs it holds the interpreter
lock the training loop needs to launch its kernels.  On the H200 (session 13,
bench/RESULTS.md) the helper at 15% of a core cost the loop 2-4% of its
samples/s, at 30% 13%, at 45% and more 25-58%.  The truth's expected class,
none, is the author's guess for the default share; runs at larger shares are
labelled from a helper-off run of the same session (the truth's label_rule).
"""

import json
import os
import statistics
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402
import healthy  # noqa: E402


class MetricsLogger(threading.Thread):
    """Every tick, serialise metric records until cpu_share of the tick is spent on this thread's CPU clock."""

    def __init__(self, path, cpu_share, tick_s, loss_host, step_counter):
        super().__init__(name="metrics_logger", daemon=True)
        self.path = path
        self.cpu_share = cpu_share
        self.tick_s = tick_s
        self.loss_host = loss_host
        self.step_counter = step_counter
        self.stop = threading.Event()
        self.samples = []  # (time.time_ns(), thread CPU ns since start)
        self.lines = 0
        self.bytes = 0
        self.error = None
        self.history = [0.0] * 2000

    def unit(self, fh):
        """One record: a window of recent values, its percentiles, one JSON line."""
        loss = float(self.loss_host[0])  # a host tensor: no GPU access
        self.history.pop(0)
        self.history.append(loss)
        window = sorted(self.history)
        rec = {"t_ns": time.time_ns(), "step": self.step_counter[0], "loss": loss,
               "p50": window[len(window) // 2], "p90": window[int(len(window) * 0.9)],
               "window": [round(v, 6) for v in self.history[-200:]]}
        line = json.dumps(rec) + "\n"
        fh.write(line)
        self.lines += 1
        self.bytes += len(line)

    def run(self):
        try:
            with open(self.path, "w") as fh:
                c_start = time.thread_time_ns()
                next_tick = time.monotonic()
                while not self.stop.is_set():
                    c0 = time.thread_time_ns()
                    budget_ns = self.cpu_share * self.tick_s * 1e9
                    while time.thread_time_ns() - c0 < budget_ns and not self.stop.is_set():
                        self.unit(fh)
                        time.sleep(0)  # hand the interpreter lock back between pieces
                    fh.flush()
                    self.samples.append((time.time_ns(), time.thread_time_ns() - c_start))
                    next_tick += self.tick_s
                    self.stop.wait(max(0.0, next_tick - time.monotonic()))
        except Exception as e:  # the training goes on; the truth says the helper died
            self.error = "%s: %s" % (type(e).__name__, e)


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    healthy.add_options(p)
    p.add_argument("--helper-cpu-pct", type=float, default=15.0,
                   help="share of one core the helper thread spends (0: no helper, the control run)")
    p.add_argument("--tick-ms", type=float, default=100.0)
    p.add_argument("--data-dir", default="/tmp/gpuwhy_scn")
    args = common.parse_args(p)
    if not (0 <= args.helper_cpu_pct <= 90) or args.tick_ms <= 0:
        p.error("need 0 <= --helper-cpu-pct <= 90 and --tick-ms > 0")
    dev = common.setup_cuda(args.seed)
    B, L = args.batch_size, args.seq_len
    loss_host = torch.zeros(1, pin_memory=True)
    step_counter = [0]

    def after_step(loss):
        loss_host.copy_(loss.detach(), non_blocking=True)  # for the logger; nobody waits for it
        step_counter[0] += 1

    model, fused, step = healthy.make_train_step(args, dev, after_step)

    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, "metrics_%d.jsonl" % os.getpid())
    helper = None
    if args.helper_cpu_pct > 0:
        helper = MetricsLogger(path, args.helper_cpu_pct / 100.0, args.tick_ms / 1e3, loss_host, step_counter)
        helper.start()

    def measured(gt):
        if helper is None:
            return {"helper": None}
        s = [x for x in helper.samples if gt.started_ns <= x[0] <= gt.ended_ns]
        share = None
        if len(s) >= 2 and s[-1][0] > s[0][0]:
            share = (s[-1][1] - s[0][1]) / (s[-1][0] - s[0][0])
        return {"helper": {"thread": helper.name, "cpu_pct_of_core": round(100 * share, 1) if share else None,
                           "target_cpu_pct": args.helper_cpu_pct, "records": helper.lines,
                           "bytes_written": helper.bytes, "error": helper.error}}

    def cleanup():
        if helper is not None:
            helper.stop.set()
            helper.join(timeout=2)
        common.remove_files(path)

    params = healthy.truth_params(args, model, fused)
    gt = common.GroundTruth(
        args, "logging_thread", ["none"],
        "The healthy transformer (%d layers, d_model %d, batch %d x %d tokens made on the GPU, bf16 "
        "autocast, AdamW) with a helper thread in the same process that every %.0f ms spends %.0f%% "
        "of a core (its own thread CPU clock; measured in the truth's helper block) building metric "
        "records, serialising them to JSON and appending them to a file. The helper never touches the GPU "
        "(the loss reaches it through a pinned host copy nobody waits for) and hands the interpreter lock "
        "back between small pieces of work, so the process's CPU rises above its main thread's. A busy "
        "thread is not a data loader; but while it runs Python it holds the interpreter lock the loop "
        "needs to launch kernels: at the default 15%% of a core the job stays compute-bound (none), at "
        "30%% and more the loop measurably slows (label such runs from a helper-off run)." % (
            args.layers, args.d_model, B, L, args.tick_ms, args.helper_cpu_pct),
        params, B, B)
    gt.late_extra.append(measured)
    common.run(gt, step, on_exit=cleanup)


if __name__ == "__main__":
    main()
