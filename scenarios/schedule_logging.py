"""schedule_shape: heavy logging every N training steps.

Training is healthy (bf16 MLP, data made on the GPU).  Every N steps a logging
hook copies every parameter, gradient and optimizer moment to the host with
.cpu(), reads summary statistics one .item() at a time, builds histograms in
a Python loop and appends them to a log file.  The GPU idles meanwhile, so
activity dips at a fixed step period.  Logging passes are steps of kind "log".
"""

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def py_histogram(values, bins):
    lo = min(values)
    hi = max(values)
    width = (hi - lo) / bins if hi > lo else 1.0
    counts = [0] * bins
    for v in values:
        k = int((v - lo) / width)
        if k >= bins:
            k = bins - 1
        elif k < 0:
            k = 0
        counts[k] += 1
    return lo, hi, counts


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="/tmp/gpuwhy_scn")
    common.schedule_options(p, "logging passes", batch_size=8192, in_dim=1024, width=4096, depth=4, classes=1000)
    p.add_argument("--hist-values", type=int, default=50000, help="values per tensor fed to the Python histogram")
    p.add_argument("--bins", type=int, default=64)
    args, dev, model, opt, train_step = common.schedule_training(p, lambda ps: torch.optim.AdamW(ps, lr=1e-4))

    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, "train_log_%d.jsonl" % os.getpid())
    logf = open(path, "w")
    lg = {"passes": 0, "tensors_per_pass": 0, "bytes_to_host_per_pass": 0}

    def cleanup():
        logf.close()
        common.remove_files(path)

    def log_pass():
        tensors = []
        for name, prm in model.named_parameters():
            tensors.append(("param/" + name, prm))
            if prm.grad is not None:
                tensors.append(("grad/" + name, prm.grad))
            st = opt.state.get(prm, {})
            for key in ("exp_avg", "exp_avg_sq"):
                if key in st:
                    tensors.append(("%s/%s" % (key, name), st[key]))
        moved = 0
        for name, t in tensors:
            host = t.detach().float().cpu()  # synchronous copy of the whole tensor
            moved += host.numel() * 4
            rec = {
                "pass": lg["passes"], "name": name, "shape": list(t.shape),
                # one device round trip per statistic, as logging code often does
                "mean": t.float().mean().item(), "std": t.float().std().item() if t.numel() > 1 else 0.0,
                "min": t.min().item(), "max": t.max().item(), "norm": t.float().norm().item(),
            }
            flat = host.view(-1)
            stride = max(1, flat.numel() // max(1, args.hist_values))
            vals = flat[::stride][:args.hist_values].tolist()
            rec["hist_lo"], rec["hist_hi"], rec["hist"] = py_histogram(vals, args.bins)
            logf.write(json.dumps(rec) + "\n")
        logf.flush()
        lg["passes"] += 1
        lg["tensors_per_pass"] = len(tensors)
        lg["bytes_to_host_per_pass"] = moved

    common.run_schedule(
        args, "schedule_logging", "log", log_pass, train_step,
        "A healthy, compute-bound training loop (bf16 MLP of %d layers of width %d, batch %d, data made on "
        "the GPU) that every N steps (about %.1f s of training) runs a heavy logging hook: every parameter, "
        "gradient and AdamW moment is copied to the host with .cpu(), five statistics per tensor are read "
        "with separate .item() calls, a %d-bin histogram of %d values per tensor is built in a Python loop, "
        "and the records are appended to a JSON-lines file. The GPU idles during the hook, so activity dips "
        "at a fixed step period; the hooks are the steps of kind log." % (
            args.depth, args.width, args.batch_size, args.train_period_s, args.bins, args.hist_values),
        extra={"log_stats": lg}, on_exit=cleanup, param_bytes=common.param_bytes(model), precision="bf16 autocast")


if __name__ == "__main__":
    main()
