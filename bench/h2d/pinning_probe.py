"""When does pinning pay? Host-to-device copy speeds and loader step times.

The pin_memory fix (docs/FIXES.md) predicts a gain for programs whose
training thread waits in pageable host-to-device copies. This probe measures
the physics the prediction rests on, on the machine it runs on:

  1. copy bandwidth: pageable, pinned, shared-memory (what a DataLoader worker
     hands over) and the pin thread's own host copy (pageable -> pinned);
  2. steady step time of a DataLoader-fed loop, batches of B MiB and a model
     of H hidden units, with pin_memory off / on / on + non_blocking.

  python3 bench/h2d/pinning_probe.py [--sizes-mib 16,64,256] [--hidden 256,4096] [--steps 40]

Prints one JSON object per measurement (one line each).
"""

import argparse
import json
import statistics
import time

import torch


def copy_rates(size_mib, reps):
    n = size_mib * (1 << 20) // 4
    pageable = torch.empty(n).normal_()
    shared = torch.empty(n).normal_().share_memory_()
    pinned = torch.empty(n, pin_memory=True).normal_()
    dst = torch.empty(n, device="cuda")
    pin_dst = torch.empty(n, pin_memory=True)
    out = {}

    def rate(fn):
        times = []
        for _ in range(reps):
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            fn()
            torch.cuda.synchronize()
            times.append(time.perf_counter() - t0)
        return size_mib / 1024 / statistics.median(times)

    out["pageable_h2d_GBps"] = rate(lambda: dst.copy_(pageable))
    out["shared_h2d_GBps"] = rate(lambda: dst.copy_(shared))
    out["pinned_h2d_GBps"] = rate(lambda: dst.copy_(pinned))
    out["pin_host_copy_GBps"] = rate(lambda: pin_dst.copy_(pageable))
    out["pin_memory_call_GBps"] = rate(lambda: pageable.pin_memory())
    return out


class HostBatches(torch.utils.data.Dataset):
    def __init__(self, host, labels):
        self.host, self.labels = host, labels

    def __len__(self):
        return 1 << 30

    def __getitem__(self, i):
        return self.host[i % len(self.host)], self.labels[i % len(self.labels)]


def loader_steps(size_mib, hidden, steps, pin, non_blocking, features=4096):
    rows = size_mib * (1 << 20) // (4 * features)
    host = [torch.empty(rows, features).normal_() for _ in range(2)]
    labels = [torch.randint(0, 10, (rows,)) for _ in range(2)]
    loader = torch.utils.data.DataLoader(HostBatches(host, labels), batch_size=None, num_workers=1,
                                         pin_memory=pin, persistent_workers=True, prefetch_factor=2)
    model = torch.nn.Sequential(torch.nn.Linear(features, hidden), torch.nn.ReLU(),
                                torch.nn.Linear(hidden, 10)).cuda()
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    it = iter(loader)
    wait_s, copy_s, times = [], [], []
    for k in range(steps + 5):
        t0 = time.perf_counter()
        xh, yh = next(it)
        t1 = time.perf_counter()
        x = xh.to("cuda", non_blocking=non_blocking)
        y = yh.to("cuda", non_blocking=non_blocking)
        t2 = time.perf_counter()
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        loss.item()
        t3 = time.perf_counter()
        if k >= 5:
            times.append(t3 - t0)
            wait_s.append(t1 - t0)
            copy_s.append(t2 - t1)
    del it, loader
    return {"step_ms": statistics.median(times) * 1e3, "loader_wait_ms": statistics.median(wait_s) * 1e3,
            "copy_call_ms": statistics.median(copy_s) * 1e3}


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--sizes-mib", default="16,64,256")
    p.add_argument("--hidden", default="256,4096")
    p.add_argument("--steps", type=int, default=40)
    a = p.parse_args()
    sizes = [int(s) for s in a.sizes_mib.split(",")]
    print(json.dumps({"device": torch.cuda.get_device_name(), "torch": torch.__version__}), flush=True)
    for s in sizes:
        print(json.dumps(dict(kind="copy", size_mib=s, **copy_rates(s, 10))), flush=True)
    for s in sizes:
        for h in [int(x) for x in a.hidden.split(",")]:
            for pin, nb in ((False, False), (True, False), (True, True)):
                r = loader_steps(s, h, a.steps, pin, nb)
                print(json.dumps(dict(kind="loader", size_mib=s, hidden=h, pin_memory=pin, non_blocking=nb, **r)),
                      flush=True)


if __name__ == "__main__":
    main()
