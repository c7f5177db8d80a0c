"""input_pipeline: large batches copied from pageable host memory.

Each step copies a 256 MiB batch that lives in ordinary (pageable, not pinned)
host memory to the GPU with a plain .to('cuda'): the copy is staged through a
driver bounce buffer and blocks the host.  The model is light, so the step is
dominated by host-to-device copies: PCIe receive is high, SM activity is low.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    common.add_numeric_options(p, batch_mib=256, features=4096)
    p.add_argument("--buffers", type=int, default=2, help="distinct host batches cycled through")
    p.add_argument("--hidden", type=int, default=256,
                   help="the MLP's hidden width: 256 leaves the step to the copy; wider gives the GPU work of a "
                        "few milliseconds, which a pinned, non-blocking copy can overlap")
    p.add_argument("--loader", action="store_true",
                   help="serve the host batches through a torch DataLoader (1 persistent worker, pin_memory=False, "
                        "whole batches, no collation), as a program that forgot pin_memory does; the copies stay "
                        "plain .to('cuda') from pageable memory")
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)

    rows = max(1, args.batch_mib * (1 << 20) // (4 * args.features))
    common.log("allocating %d pageable host batches of %d x %d fp32 (%.0f MiB each)" % (
        args.buffers, rows, args.features, rows * args.features * 4 / (1 << 20)))
    host = []
    for b in range(max(1, args.buffers)):
        t = torch.empty(rows, args.features, dtype=torch.float32)  # pageable
        t.normal_(generator=torch.Generator().manual_seed(args.seed + b))
        host.append(t)
    labels = [torch.randint(0, 10, (rows,), generator=torch.Generator().manual_seed(args.seed + 100 + b))
              for b in range(len(host))]
    assert not host[0].is_pinned()

    model = torch.nn.Sequential(
        torch.nn.Linear(args.features, args.hidden), torch.nn.ReLU(), torch.nn.Linear(args.hidden, 10)).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01)
    loss_fn = torch.nn.CrossEntropyLoss()
    state = {"k": 0}

    batches = None
    if args.loader:
        class HostBatches(torch.utils.data.Dataset):
            """Item i is a whole pre-made batch (the DataLoader's batch_size=None: no collation)."""

            def __len__(self):
                return 1 << 30

            def __getitem__(self, i):
                return host[i % len(host)], labels[i % len(labels)]

        loader = torch.utils.data.DataLoader(HostBatches(), batch_size=None, num_workers=1, pin_memory=False,
                                             persistent_workers=True, prefetch_factor=2)
        batches = iter(loader)

    def step():
        if batches is not None:
            xh, yh = next(batches)
            x = xh.to(dev)  # pageable unless a fix pinned it, synchronous unless a fix made it not
            y = yh.to(dev)
        else:
            k = state["k"] % len(host)
            state["k"] += 1
            x = host[k].to(dev)  # pageable, synchronous
            y = labels[k].to(dev)
        loss = loss_fn(model(x), y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    params = common.vars_of(args)
    params.update(rows=rows, pinned=False, non_blocking=False, loader=bool(args.loader),
                  bytes_per_step=rows * args.features * 4 + rows * 8)
    gt = common.GroundTruth(
        args, "input_pageable_copies", ["input_pipeline"],
        "Every step copies a %d MiB fp32 batch (%d rows of %d features) from pageable host memory to the "
        "GPU with a plain .to('cuda') (no pin_memory, no non_blocking), then trains a two-layer MLP of "
        "%d hidden units. The synchronous pageable copy takes a large part of the step and the GPU waits "
        "through it: PCIe receive traffic is high while kernels are idle." % (
            args.batch_mib, rows, args.features, args.hidden),
        params, rows, rows)
    common.run(gt, step)


if __name__ == "__main__":
    main()
