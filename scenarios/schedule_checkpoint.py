"""schedule_shape: a large synchronous checkpoint every N training steps.

Training is healthy (bf16 MLP, data made on the GPU).  Every N steps the model
and optimizer state (more than 1 GiB together) are written with torch.save to
--data-dir and fsync'd before training resumes: the GPU idles while tensors
are copied to the host and written to disk.  Checkpoints are steps of kind
"checkpoint".  The file is overwritten each time and deleted at exit.
"""

import atexit
import os
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    p.add_argument("--data-dir", default="/tmp/gpuwhy_scn")
    common.add_numeric_options(p, batch_size=4096, in_dim=1024, width=8192, depth=3, classes=1024)
    common.add_period_options(p, "checkpoints")
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)

    model, opt, train_step = common.bf16_mlp_training(
        args, dev, lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9))
    pbytes = common.param_bytes(model)

    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, "checkpoint_%d.pt" % os.getpid())
    ck = {"count": 0, "bytes": None, "last_s": None}

    def cleanup():
        common.remove_files(path, path + ".tmp")

    atexit.register(cleanup)

    def checkpoint():
        t0 = time.monotonic()
        state = {"model": model.state_dict(), "optimizer": opt.state_dict(), "count": ck["count"]}
        with open(path + ".tmp", "wb") as f:
            torch.save(state, f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(path + ".tmp", path)
        ck["count"] += 1
        ck["bytes"] = os.path.getsize(path)
        ck["last_s"] = round(time.monotonic() - t0, 3)

    per = common.Periodic("checkpoint", checkpoint, every=args.every, period_s=args.train_period_s)
    params = common.vars_of(args)
    # SGD with momentum keeps one buffer per parameter: checkpoint ~ 2 x parameter bytes
    params.update(param_bytes=pbytes, approx_checkpoint_bytes=2 * pbytes, optimizer="SGD momentum",
                  precision="bf16 autocast, fp32 weights")
    gt = common.GroundTruth(
        args, "schedule_checkpoint", ["schedule_shape"],
        "A healthy, compute-bound training loop (bf16-autocast MLP with %.0f MB of fp32 weights, batch %d, "
        "data made on the GPU) that every N steps (about %.1f s of training) saves model and optimizer "
        "state, about %.1f GB, with a synchronous torch.save to %s followed by fsync. While the tensors "
        "are copied to the host and written out the GPU idles, so activity dips at a fixed step period and "
        "disk writes burst at the same period; checkpoints are the steps of kind checkpoint." % (
            pbytes / 1e6, args.batch_size, args.train_period_s, 2 * pbytes / 1e9, args.data_dir),
        params, args.batch_size, args.batch_size, extra={"checkpoint_stats": ck})
    common.run(gt, train_step, periodic=[per], on_exit=cleanup)


if __name__ == "__main__":
    main()
