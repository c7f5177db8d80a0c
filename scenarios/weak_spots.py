"""Programs aimed at where averages mislead: one --mode per known weak spot.

Each mode is a small training loop whose cause is known by construction and
written into the truth JSON. They are the cases that run-wide averages get
wrong: loaders that wait instead of compute, loaders that are born again for
every pass, stalls between 1.5 and 3 s, shapes that change every step with no
allocator churn and no compilation, and batches made inside the training loop.

  loader_latency_procs  4 DataLoader worker processes; each sample is a 6 ms
                        wait on a simulated remote store (sleep), almost no
                        CPU: the GPU waits on workers that sleep. input_pipeline
  loader_latency_threads the same store read by 4 threads of the training
                        process (a ThreadPoolExecutor prefetching batches), no
                        DataLoader: the training thread waits on a future.
                        input_pipeline
  respawn_epoch         4 DataLoader workers, not persistent, epochs of about
                        1.5 s: every epoch starts 4 new worker processes and
                        the GPU waits for their first batches. input_pipeline
  eval_respawn          GPU-made training data; about every 2 s an evaluation
                        pass whose DataLoader (4 workers, not persistent) is
                        made anew: the stall recurs at a step period.
                        schedule_shape
  eval_own_loader       training loader is fast (2 persistent workers, data
                        ready in memory); about every 2.5 s an evaluation pass
                        whose own loader (1 persistent worker) does heavy CPU
                        work per sample: the training loader is not the cause.
                        schedule_shape
  checkpoint_short      GPU-made training data; about every 1.5 s a
                        synchronous torch.save of model + optimizer with fsync.
                        schedule_shape
  inline_numpy          no DataLoader: each batch is cropped, flipped and
                        normalised with numpy in the training loop, then
                        copied to the GPU. input_pipeline
  shapes_vary           a transformer whose sequence length is drawn anew each
                        step (64..512, multiples of 8), no cudnn.benchmark, no
                        compile; the longest length runs first so that the
                        caching allocator holds its peak: no memory churn.
                        schedule_shape

Every mode prints its steady median step and writes the usual truth (common.py).
"""

import concurrent.futures
import os
import random
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402

import common  # noqa: E402

MODES = {
    "loader_latency_procs": ["input_pipeline"],
    "loader_latency_threads": ["input_pipeline"],
    "respawn_epoch": ["input_pipeline"],
    "eval_respawn": ["schedule_shape"],
    "eval_own_loader": ["schedule_shape"],
    "checkpoint_short": ["schedule_shape"],
    "inline_numpy": ["input_pipeline"],
    "shapes_vary": ["schedule_shape"],
}
FEATURES = 1024
CLASSES = 100
# The training step alone must be GPU-bound, so that the only cause is the mode's. A 4 x 4096 MLP (bf16, fused
# AdamW) at batch 1024 is 3.3e11 FLOPs a step, 0.5 ms on an H100, under the 2.5-3 ms the Python loop takes to
# launch it: recorded that way, eval_respawn and checkpoint_short were launch-bound first (launching 52-61% of the
# idle time against 6-16% for their stalls). Their batches are 8x (eval) and 32x (checkpoint, whose model is
# narrower: 3 x 4 bytes a parameter, 0.2 GB a save) that: 3.3e12 FLOPs, about 5 ms of GPU work a step. The
# latency-bound loaders deliver 64 samples a batch (6 ms each).
BATCH = {"loader_latency_procs": 64, "loader_latency_threads": 64, "respawn_epoch": 256, "eval_respawn": 8192,
         "checkpoint_short": 32768}
WIDTH = {"checkpoint_short": 2048}


class SlowStore(torch.utils.data.Dataset):
    """A sample is one round trip to a remote store: a sleep, then bytes made cheaply."""

    def __init__(self, latency_ms, n=1 << 30):
        self.latency_s = latency_ms / 1e3
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        time.sleep(self.latency_s)
        g = torch.Generator().manual_seed(i)
        return torch.randn(FEATURES, generator=g), i % CLASSES


class CpuHeavy(torch.utils.data.Dataset):
    """A sample that costs CPU: a 3x96x96 image, blurred by repeated averaging in numpy."""

    def __init__(self, n, passes):
        self.n = n
        self.passes = passes

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = np.random.default_rng(i)
        img = rng.random((3, 96, 96), dtype=np.float32)
        for _ in range(self.passes):
            img = (img + np.roll(img, 1, axis=1) + np.roll(img, 1, axis=2)) / 3.0
        return torch.from_numpy(img.reshape(-1)[:FEATURES].copy()), i % CLASSES


class InMemory(torch.utils.data.Dataset):
    def __init__(self, n):
        g = torch.Generator().manual_seed(7)
        self.x = torch.randn(n, FEATURES, generator=g)
        self.y = torch.randint(0, CLASSES, (n,), generator=g)

    def __len__(self):
        return len(self.x)

    def __getitem__(self, i):
        return self.x[i], self.y[i]


def mlp_train(model, opt, dev):
    """train_on(x, y) for host batches: copied to dev without blocking, then one bf16 step."""
    train_on_gpu = common.bf16_train_on(model, opt)

    def train_on(x, y):
        x = x.to(dev, non_blocking=True)
        y = y.to(dev, non_blocking=True)
        train_on_gpu(x, y)
    return train_on


def main():
    p = common.make_parser(__doc__.splitlines()[0], duration=20.0, warmup_steps=5)
    p.add_argument("--mode", required=True, choices=sorted(MODES))
    p.add_argument("--batch-size", type=int, default=0, help="default: the mode's (see BATCH)")
    p.add_argument("--width", type=int, default=0, help="default: the mode's (see WIDTH)")
    p.add_argument("--depth", type=int, default=4)
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    mode = args.mode
    args.batch_size = args.batch_size or BATCH.get(mode, 1024)
    args.width = args.width or WIDTH.get(mode, 4096)
    model = common.make_mlp(FEATURES, args.width, args.depth, CLASSES).to(dev)
    # fused: one kernel per step for the optimizer, so that the loop itself is GPU-bound, not launch-bound
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
    train_on = mlp_train(model, opt, dev)
    periodic, cleanups, truth_notes = [], [], {}
    gen = torch.Generator(device=dev).manual_seed(args.seed)
    bs = args.batch_size

    def gpu_batch():
        return (torch.randn(bs, FEATURES, device=dev, generator=gen),
                torch.randint(0, CLASSES, (bs,), device=dev, generator=gen))

    if mode == "loader_latency_procs":
        latency_ms, workers = 6.0, 4
        loader = torch.utils.data.DataLoader(SlowStore(latency_ms), batch_size=bs, shuffle=False,
                                             num_workers=workers, persistent_workers=True, pin_memory=True)
        batches = common.InfiniteLoader(loader)
        cleanups.append(batches.close)
        truth_notes = {"latency_ms_per_sample": latency_ms, "workers": workers,
                       "loader_batches_per_s_max": round(workers / (bs * latency_ms / 1e3), 2)}

        def step():
            train_on(*batches.next())
    elif mode == "loader_latency_threads":
        latency_ms, threads = 6.0, 4
        store = SlowStore(latency_ms)
        pool = concurrent.futures.ThreadPoolExecutor(threads)
        counter = {"i": 0}

        def fetch(start):
            xs, ys = zip(*(store[start + k] for k in range(bs)))
            return torch.stack(xs).pin_memory(), torch.tensor(ys)

        pending = []

        def submit():
            pending.append(pool.submit(fetch, counter["i"]))
            counter["i"] += bs

        for _ in range(threads):
            submit()
        cleanups.append(lambda: pool.shutdown(wait=False, cancel_futures=True))
        truth_notes = {"latency_ms_per_sample": latency_ms, "threads": threads,
                       "batches_per_s_max": round(threads / (bs * latency_ms / 1e3), 2)}

        def step():
            x, y = pending.pop(0).result()
            submit()
            train_on(x, y)
    elif mode == "respawn_epoch":
        workers = 4
        epoch_batches = 24
        loader = torch.utils.data.DataLoader(CpuHeavy(epoch_batches * bs, passes=1), batch_size=bs,
                                             shuffle=True, num_workers=workers, persistent_workers=False,
                                             pin_memory=True)
        batches = common.InfiniteLoader(loader)
        cleanups.append(batches.close)
        truth_notes = {"workers": workers, "batches_per_epoch": epoch_batches, "persistent_workers": False}

        def step():
            train_on(*batches.next())
    elif mode in ("eval_respawn", "eval_own_loader"):
        # the own loader's CPU-heavy samples take about 0.65 ms each in one worker: 12 batches of 1024 made one
        # 8 s pass that outlasted the 12 s run (the program ended inside it); 2 batches are a 1.3 s pass
        eval_batches = 12 if mode == "eval_respawn" else 2
        if mode == "eval_respawn":
            eval_ds = InMemory(eval_batches * bs)

            def eval_loader():
                return torch.utils.data.DataLoader(eval_ds, batch_size=bs, num_workers=4,
                                                   persistent_workers=False)
            period_s = 2.0
        else:
            train_loader = torch.utils.data.DataLoader(InMemory(64 * bs), batch_size=bs, shuffle=True,
                                                       num_workers=2, persistent_workers=True,
                                                       pin_memory=True)
            train_batches = common.InfiniteLoader(train_loader)
            cleanups.append(train_batches.close)
            persistent_eval = torch.utils.data.DataLoader(CpuHeavy(eval_batches * bs, passes=6), batch_size=bs,
                                                          num_workers=1, persistent_workers=True)

            def eval_loader():
                return persistent_eval
            period_s = 2.5

        def evaluate():
            model.eval()
            with torch.no_grad():
                correct = 0
                for x, y in eval_loader():
                    x, y = x.to(dev), y.to(dev)
                    with torch.autocast("cuda", dtype=torch.bfloat16):
                        correct += int((model(x).argmax(1) == y).sum())
            model.train()
            torch.cuda.synchronize()
        periodic.append(common.Periodic("eval", evaluate, period_s=period_s))
        truth_notes = {"eval_period_s_planned": period_s, "eval_batches": eval_batches,
                       "eval_loader": "respawned each pass (4 workers)" if mode == "eval_respawn"
                       else "its own persistent loader, 1 worker, CPU-heavy samples"}
        if mode == "eval_respawn":
            def step():
                train_on(*gpu_batch())
        else:
            def step():
                train_on(*train_batches.next())
    elif mode == "checkpoint_short":
        ckpt_dir = tempfile.mkdtemp(prefix="gpuwhy_ckpt_")
        path = os.path.join(ckpt_dir, "ckpt.pt")

        def checkpoint():
            with open(path, "wb") as f:
                torch.save({"model": model.state_dict(), "opt": opt.state_dict()}, f)
                f.flush()
                os.fsync(f.fileno())

        def remove():
            try:
                os.remove(path)
                os.rmdir(ckpt_dir)
            except OSError:
                pass
        cleanups.append(remove)
        periodic.append(common.Periodic("checkpoint", checkpoint, period_s=1.5))
        truth_notes = {"checkpoint_period_s_planned": 1.5, "checkpoint_bytes": 3 * common.param_bytes(model)}

        def step():
            train_on(*gpu_batch())
    elif mode == "inline_numpy":
        rng = np.random.default_rng(args.seed)
        pool = rng.integers(0, 256, size=(512, 3, 72, 72), dtype=np.uint8)

        def make_batch():
            idx = rng.integers(0, len(pool), size=bs)
            out = np.empty((bs, 3, 64, 64), dtype=np.float32)
            for k, i in enumerate(idx):
                dy, dx = rng.integers(0, 8, size=2)
                img = pool[i, :, dy:dy + 64, dx:dx + 64].astype(np.float32) / 255.0
                if rng.random() < 0.5:
                    img = img[:, :, ::-1]
                out[k] = (img - img.mean()) / (img.std() + 1e-6)
            x = torch.from_numpy(out.reshape(bs, -1)[:, :FEATURES].copy())
            return x, torch.from_numpy(rng.integers(0, CLASSES, size=bs))

        truth_notes = {"batch_made_in": "the training thread with numpy", "dataloader": None}

        def step():
            train_on(*make_batch())
    elif mode == "shapes_vary":
        d_model, vocab = 512, 8192
        model = common.TokenEncoder(vocab, d_model, 4, 8, vocab).to(dev)
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        loss_fn = torch.nn.CrossEntropyLoss()
        torch.backends.cudnn.benchmark = False
        lengths = list(range(64, 513, 8))
        rng = random.Random(args.seed)
        first = {"done": False}
        seen = []

        def step():
            n = lengths[-1] if not first["done"] else rng.choice(lengths)
            first["done"] = True
            seen.append(n)
            tokens = torch.randint(0, vocab, (16, n), device=dev, generator=gen)
            with torch.autocast("cuda", dtype=torch.bfloat16):
                logits = model(tokens)
                loss = loss_fn(logits.view(-1, vocab).float(), tokens.view(-1))
            opt.zero_grad(set_to_none=True)
            loss.backward()
            opt.step()
        truth_notes = {"lengths": [lengths[0], lengths[-1], 8], "cudnn_benchmark": False, "compile": False,
                       "allocator_peak_first": True}

    gt = common.GroundTruth(args, "weak_spots_" + mode, MODES[mode],
                            "weak_spots --mode %s: %s" % (mode, " ".join(
                                line.strip() for line in _mode_doc(mode))),
                            dict(common.vars_of(args), **truth_notes), bs, bs)

    def close_all():
        for c in cleanups:
            c()
    common.run(gt, step, periodic=periodic, on_exit=close_all)


def _mode_doc(mode):
    """The mode's paragraph of this file's docstring."""
    lines, on = [], False
    for line in __doc__.splitlines():
        if line.startswith("  " + mode + " "):
            on = True
            lines.append(line[len(mode) + 2:])
        elif on and line.startswith("    "):
            lines.append(line)
        elif on:
            break
    return lines


if __name__ == "__main__":
    main()
