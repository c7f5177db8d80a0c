"""schedule_shape: a long evaluation pass every N training steps.

Training itself is healthy (bf16 MLP, large batch, data made on the GPU).  Every
N steps an evaluation runs: batches are generated on the CPU in pageable
memory, copied to the GPU, scored under torch.no_grad, and the metrics are
computed in a plain Python loop.  The GPU is nearly idle during evaluation, so
its activity dips at a fixed step period.  Eval periods are steps of kind "eval".
"""

import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    common.schedule_options(p, "evaluations", batch_size=8192, in_dim=1024, width=4096, depth=4, classes=1000)
    p.add_argument("--eval-seconds", type=float, default=1.5, help="length of each evaluation pass")
    p.add_argument("--eval-batch", type=int, default=2048)
    args, dev, model, opt, train_step = common.schedule_training(p, lambda ps: torch.optim.AdamW(ps, lr=1e-4))
    cpu_gen = torch.Generator().manual_seed(args.seed + 7)
    eval_stats = {"passes": 0, "batches": 0, "acc1": None}

    def evaluate():
        model.eval()
        t_end = time.monotonic() + args.eval_seconds
        correct1 = correct5 = total = 0
        per_class = {}
        with torch.no_grad():
            while True:
                # the eval set is prepared on the CPU, in pageable memory
                x = torch.randn(args.eval_batch, args.in_dim, generator=cpu_gen)
                y = torch.randint(0, args.classes, (args.eval_batch,), generator=cpu_gen)
                with torch.autocast("cuda", dtype=torch.bfloat16):
                    logits = model(x.to(dev))
                top5 = logits.float().topk(5, dim=1).indices.cpu().tolist()
                labels = y.tolist()
                for pred, lab in zip(top5, labels):  # slow metric loop in Python
                    total += 1
                    hit1 = pred[0] == lab
                    correct1 += hit1
                    correct5 += lab in pred
                    c = per_class.setdefault(lab, [0, 0])
                    c[0] += 1
                    c[1] += hit1
                eval_stats["batches"] += 1
                if time.monotonic() >= t_end:
                    break
        # per-class recall, also in Python
        recalls = sorted(hit / max(n, 1) for n, hit in per_class.values())
        eval_stats["passes"] += 1
        eval_stats["acc1"] = correct1 / max(total, 1)
        eval_stats["median_recall"] = recalls[len(recalls) // 2] if recalls else None
        model.train()

    common.run_schedule(
        args, "schedule_eval", "eval", evaluate, train_step,
        "A healthy, compute-bound training loop (bf16 MLP of %d layers of width %d, batch %d, data made on "
        "the GPU) that stops every N steps (N chosen so about %.1f s of training passes between them) for a "
        "%.1f s evaluation: eval batches are generated on the CPU in pageable memory, copied over, scored "
        "under torch.no_grad, and top-1/top-5 accuracy and per-class recall are computed in a Python loop. "
        "During evaluation the GPU is nearly idle, so activity dips at a fixed step period; the eval passes "
        "are the steps of kind eval." % (args.depth, args.width, args.batch_size, args.train_period_s,
                                          args.eval_seconds),
        extra={"eval_stats": eval_stats}, param_bytes=common.param_bytes(model), precision="bf16 autocast")


if __name__ == "__main__":
    main()
