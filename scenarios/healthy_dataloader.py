"""none: the healthy transformer fed by a DataLoader that is never the limit.

The language model of healthy.py (8 layers, d_model 1024, bf16 autocast,
fused AdamW) trains on token batches served by a torch DataLoader over a
dataset of ready token tensors held in host memory: two persistent workers
only slice and stack rows (well under a millisecond a batch) into pinned
memory, copied with non_blocking, while a step takes tens of milliseconds on
the GPU.  Prefetching keeps batches waiting for the loop, so the GPU is the
bottleneck: `gpuwhy experiment fixed-batch` (the first K batches replayed)
should show no significant change, the control for the input-bound scenarios.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402
import healthy  # noqa: E402


class ReadyTokens(torch.utils.data.Dataset):
    """Rows of token ids made once; an item is a view of one row."""

    def __init__(self, rows, seq_len, vocab, seed):
        g = torch.Generator().manual_seed(seed)
        self.tokens = torch.randint(0, vocab, (rows, seq_len + 1), generator=g)

    def __len__(self):
        return self.tokens.shape[0]

    def __getitem__(self, i):
        return self.tokens[i]


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    healthy.add_options(p)
    p.add_argument("--rows", type=int, default=16384,
                   help="token rows in host memory; an epoch is rows / batch size steps (512 by default, "
                        "long beside fixed-batch's K replayed batches, which are fetched again each epoch)")
    p.add_argument("--num-workers", type=int, default=2)
    args = common.parse_args(p)
    if args.rows < args.batch_size:
        p.error("need --rows >= --batch-size")
    dev = common.setup_cuda(args.seed)
    B, L = args.batch_size, args.seq_len
    ds = ReadyTokens(args.rows, L, args.vocab, args.seed)
    kw = dict(persistent_workers=True, prefetch_factor=4) if args.num_workers > 0 else {}
    loader = torch.utils.data.DataLoader(ds, batch_size=B, shuffle=True, drop_last=True,
                                         num_workers=args.num_workers, pin_memory=True, **kw)
    batches = common.InfiniteLoader(loader)
    model, fused, lm_step = healthy.make_train_step(args, dev, tokens_from=lambda: batches.next().to(
        dev, non_blocking=True))

    params = healthy.truth_params(args, model, fused, pin_memory=True)
    gt = common.GroundTruth(
        args, "healthy_dataloader", ["none"],
        "The healthy %d-layer transformer (d_model %d) trained in bf16 autocast on batches of %d x %d tokens "
        "served by a DataLoader (%d persistent workers, pinned memory, non-blocking copies) over %d ready "
        "token rows in host memory: a worker only slices and stacks rows, far faster than a step runs on the "
        "GPU, so batches are always waiting. The GPU is the bottleneck; replaying cached batches "
        "(fixed-batch) changes nothing significant." % (args.layers, args.d_model, B, L, args.num_workers,
                                                       args.rows),
        params, B, B)
    common.run(gt, lm_step, on_exit=batches.close)


if __name__ == "__main__":
    main()
