"""LABEL: schedule_shape

A ~50M-parameter fp32 MLP trained with Adam on GPU-resident random data (GPU-bound steps of
roughly 20-40 ms, no sync per step); every 2.5 s of wall time the loop stops for a synchronous
checkpoint: torch.save of model.state_dict() and optimizer.state_dict() (~600 MB with Adam's two
moments) to a file in a temporary folder. While the tensors go to the host and the file is written
the GPU idles: a periodic stall.
usage: python3 ckpt.py SECONDS
"""

import os
import shutil
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 4096
IN_DIM = 2048
WIDTH = 4096
CLASSES = 2048
POOL = 8
EVERY_S = 2.5


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, WIDTH, 2, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    xs = torch.randn(POOL, BATCH, IN_DIM, device=dev)
    ys = torch.randint(0, CLASSES, (POOL, BATCH), device=dev)
    tmp = tempfile.mkdtemp(prefix="oos_ckpt_")
    path = os.path.join(tmp, "checkpoint.pt")
    _oos.log("params %.1fM, batch %d, checkpoint every %.1f s to %s" % (
        _oos.n_params(model) / 1e6, BATCH, EVERY_S, path))

    saves = []
    try:
        loop = _oos.Loop(seconds)
        last_ckpt = time.perf_counter()
        i = 0
        while loop.running():
            x, y = xs[i % POOL], ys[i % POOL]
            opt.zero_grad(set_to_none=True)
            loss = F.cross_entropy(model(x), y)
            loss.backward()
            opt.step()
            loop.step_done(BATCH)
            i += 1
            if time.perf_counter() - last_ckpt >= EVERY_S:
                t = time.perf_counter()
                torch.save({"model": model.state_dict(), "optimizer": opt.state_dict(), "step": i},
                           path + ".tmp")
                os.replace(path + ".tmp", path)
                last_ckpt = time.perf_counter()
                saves.append(last_ckpt - t)
        loop.finish()
        size_mb = os.path.getsize(path) / 1e6 if os.path.exists(path) else 0.0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    _oos.log("%d checkpoints of %.0f MB, %.3f s each on average" % (
        len(saves), size_mb, sum(saves) / len(saves) if saves else 0.0))
    loop.result("ckpt", checkpoints=len(saves))


if __name__ == "__main__":
    main()
