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
    common.schedule_options(p, "checkpoints", batch_size=4096, in_dim=1024, width=8192, depth=3, classes=1024)
    args, dev, model, opt, train_step = common.schedule_training(
        p, lambda ps: torch.optim.SGD(ps, lr=1e-3, momentum=0.9))
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

    common.run_schedule(
        args, "schedule_checkpoint", "checkpoint", checkpoint, train_step,
        "A healthy, compute-bound training loop (bf16-autocast MLP with %.0f MB of fp32 weights, batch %d, "
        "data made on the GPU) that every N steps (about %.1f s of training) saves model and optimizer "
        "state, about %.1f GB, with a synchronous torch.save to %s followed by fsync. While the tensors "
        "are copied to the host and written out the GPU idles, so activity dips at a fixed step period and "
        "disk writes burst at the same period; checkpoints are the steps of kind checkpoint." % (
            pbytes / 1e6, args.batch_size, args.train_period_s, 2 * pbytes / 1e9, args.data_dir),
        extra={"checkpoint_stats": ck}, on_exit=cleanup,
        # SGD with momentum keeps one buffer per parameter: checkpoint ~ 2 x parameter bytes
        param_bytes=pbytes, approx_checkpoint_bytes=2 * pbytes, optimizer="SGD momentum",
        precision="bf16 autocast, fp32 weights")


if __name__ == "__main__":
    main()
