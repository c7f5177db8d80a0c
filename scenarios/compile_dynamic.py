"""schedule_shape: a torch.compile'd model recompiles for every new sequence length.

A small transformer is compiled with torch.compile(dynamic=False) and trained
on batches whose sequence length comes from a pool of --distinct lengths (128,
192, ... tokens).  Static shapes mean one graph per length: the first time a
length comes, dynamo traces again and Inductor compiles a forward and a
backward (its compile workers are child processes of the job), while the GPU
waits; later visits of a length reuse its graph.  The recompile limit is raised
so that every length gets its graph instead of falling back to eager.

A first visit costs seconds (about 7 s on an H200 for this model), a revisit
milliseconds, so the steps cycle through the lengths already seen and a new
length joins only after --new-length-every-s seconds of such revisits: the
recorded window holds hundreds of steady steps with a recompile stall every
few seconds, as a job whose inputs keep bringing new shapes does.  The warm-up
compiles the first --warm-lengths lengths and revisits them once each.
Padding to a few bucket lengths, or dynamic=True, would fix it.
"""

import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def raise_recompile_limits(at_least):
    """Let dynamo keep one graph per length (the default limit is 8); names differ between releases."""
    import torch._dynamo
    cfg = torch._dynamo.config
    done = {}
    for name in ("recompile_limit", "cache_size_limit", "accumulated_recompile_limit", "accumulated_cache_size_limit"):
        if hasattr(cfg, name):
            try:
                setattr(cfg, name, max(int(getattr(cfg, name)), at_least))
                done[name] = getattr(cfg, name)
            except Exception as e:
                done[name] = "not set: %s" % e
    if hasattr(cfg, "automatic_dynamic_shapes"):
        cfg.automatic_dynamic_shapes = False  # dynamic=False already; make the intent explicit
        done["automatic_dynamic_shapes"] = False
    return done


class LengthSchedule:
    """Which sequence length each step uses: the next unseen length while
    fewer than warm_lengths were seen, or once new_every_s seconds (of the
    clock) have passed since the previous first visit ended; otherwise the
    lengths seen so far in turn. start_revisit_clock() is called when the
    steady state begins, first_visit_done() after each first visit."""

    def __init__(self, lengths, warm_lengths, new_every_s, clock):
        self.lengths, self.warm_lengths, self.new_every_s, self.clock = list(lengths), warm_lengths, new_every_s, clock
        self.seen = []
        self.turn = 0
        self.next_new_t = None  # None: no new length until the steady state starts the clock

    def next_length(self):
        unseen = len(self.seen) < len(self.lengths)
        due = self.next_new_t is not None and self.clock() >= self.next_new_t
        if unseen and (len(self.seen) < self.warm_lengths or due):
            L = self.lengths[len(self.seen)]
            self.seen.append(L)
            return L, True
        L = self.seen[self.turn % len(self.seen)]
        self.turn += 1
        return L, False

    def first_visit_done(self):
        if self.next_new_t is not None:
            self.next_new_t = self.clock() + self.new_every_s

    def start_revisit_clock(self):
        if self.next_new_t is None:
            self.next_new_t = self.clock() + self.new_every_s


def unique_graphs():
    try:
        from torch._dynamo.utils import counters
        return int(counters["stats"]["unique_graphs"])
    except Exception:
        return None


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=None)
    p.add_argument("--distinct", type=int, default=8, help="sequence lengths in the pool (default %(default)s)")
    p.add_argument("--warm-lengths", type=int, default=2,
                   help="lengths compiled during the warm-up (default %(default)s)")
    p.add_argument("--new-length-every-s", type=float, default=6.0,
                   help="seconds of revisits between two first visits in the steady state (default %(default)s)")
    common.add_numeric_options(p, min_len=128, len_step=64, batch_size=16, d_model=512, layers=2, heads=8, vocab=8192,
                            classes=256)
    args = common.parse_args(p)
    if args.distinct < 2 or args.min_len < 1 or args.len_step < 1:
        p.error("need --distinct >= 2, --min-len >= 1, --len-step >= 1")
    if not 1 <= args.warm_lengths < args.distinct or args.new_length_every_s <= 0:
        p.error("need 1 <= --warm-lengths < --distinct and --new-length-every-s > 0")
    if args.warmup_steps is None:
        # each warm length compiled once, then revisited once: the steady state starts on cached graphs
        args.warmup_steps = 2 * args.warm_lengths
    dev = common.setup_cuda(args.seed)
    lengths = [args.min_len + i * args.len_step for i in range(args.distinct)]
    limits = raise_recompile_limits(4 * args.distinct)
    try:
        import torch._inductor.config as icfg
        compile_threads = getattr(icfg, "compile_threads", None)
    except Exception:
        compile_threads = None

    model = common.TokenEncoder(args.vocab, args.d_model, args.layers, args.heads, args.classes).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    state = {"fwd": torch.compile(model, dynamic=False), "k": 0, "compile_error": None}
    schedule = LengthSchedule(lengths, args.warm_lengths, args.new_length_every_s, time.monotonic)
    per_step = []  # (length, first visit, unique graphs after the step)

    def step():
        if state["k"] == args.warmup_steps:
            schedule.start_revisit_clock()  # the first steady step: revisits from here on count
        state["k"] += 1
        L, first = schedule.next_length()
        tokens = torch.randint(0, args.vocab, (args.batch_size, L), device=dev, generator=gen)
        target = torch.randint(0, args.classes, (args.batch_size, L), device=dev, generator=gen)
        opt.zero_grad(set_to_none=True)
        try:
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(state["fwd"](tokens).reshape(-1, args.classes).float(), target.reshape(-1))
            loss.backward()
        except Exception as e:  # a compiler failure must not sink the plan: record it, go on eagerly
            if state["fwd"] is model:
                raise
            state["compile_error"] = "%s: %s" % (type(e).__name__, str(e)[:500])
            common.log("warning: compiled model failed (%s); continuing eagerly" % state["compile_error"])
            state["fwd"] = model
            opt.zero_grad(set_to_none=True)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                loss = loss_fn(model(tokens).reshape(-1, args.classes).float(), target.reshape(-1))
            loss.backward()
        opt.step()
        if first:
            torch.cuda.synchronize()  # the compile and the step are done: revisits are timed from here
            schedule.first_visit_done()
        per_step.append((L, first, unique_graphs()))

    def measured(gt):
        train = [s for s in gt.steps if s["kind"] == "train"]
        n = len(train)
        info = per_step[-n:] if n else []
        dur = [(s["end_ns"] - s["start_ns"]) / 1e6 for s in train]
        new = [d for d, (_, first, _) in zip(dur, info) if first]
        old = [d for d, (_, first, _) in zip(dur, info) if not first]
        g0 = per_step[-n - 1][2] if len(per_step) > n else None
        g1 = per_step[-1][2] if per_step else None
        d = {"compile": {
            "lengths": lengths,
            "first_visit_steps": [s["i"] for s, (_, first, _) in zip(train, info) if first],
            "first_visit_step_median_ms": round(statistics.median(new), 1) if new else None,
            "revisit_step_median_ms": round(statistics.median(old), 2) if old else None,
            "first_visit_time_share": round(sum(new) / sum(dur), 3) if dur else None,
            "unique_graphs_in_window": (g1 - g0) if (g0 is not None and g1 is not None) else None,
            "revisit_steps": len(old),
            "lengths_seen_by_end": len(schedule.seen),
            "warm_lengths": args.warm_lengths,
            "new_length_every_s": args.new_length_every_s,
            "limits": limits,
            "inductor_compile_threads": compile_threads,
        }, "compile_error": state["compile_error"]}
        return d

    params = common.vars_of(args)
    params.update(param_bytes=common.param_bytes(model), precision="bf16 autocast", dynamic=False)
    gt = common.GroundTruth(
        args, "compile_dynamic", ["schedule_shape"],
        "A %d-layer transformer (d_model %d, batch %d) compiled with torch.compile(dynamic=False) and "
        "trained on batches whose length comes from a pool of %d values (%d..%d tokens), the recompile "
        "limit raised to %d. Every length seen for the first time makes dynamo trace again and Inductor "
        "compile a forward and a backward graph (its compile workers are child processes of the job), with "
        "the GPU idle; a length seen before reuses its graph. The warm-up compiled %d lengths; in the "
        "recorded window the steps revisit the lengths seen so far in turn and a new length joins after "
        "every %.0f s of revisits, so the window holds steady steps and recompile stalls (the truth's "
        "compile block lists the first-visit steps, their share of the time and the revisits). Shapes "
        "varying between steps, with recompiles: schedule_shape. Padding to a few bucket lengths, or "
        "dynamic=True, would fix it. If compile_error is set the compiler failed and the run went on "
        "eagerly: then the label does not hold." % (
            args.layers, args.d_model, args.batch_size, args.distinct, lengths[0], lengths[-1],
            4 * args.distinct, args.warm_lengths, args.new_length_every_s),
        params, args.batch_size, args.batch_size)
    gt.late_extra.append(measured)
    common.run(gt, step)


if __name__ == "__main__":
    main()
