"""schedule_shape: the sequence length changes every step.

A small transformer with a 1-D convolution stem is trained on batches whose
sequence length is drawn at random every step (32..1024).  With
cudnn.benchmark=True every new shape triggers a fresh algorithm search for the
convolution, and the allocator keeps meeting new sizes, so step times jump
around and the GPU idles while the host re-plans.  --fixed-len pads every
batch to the maximum length: one shape, steady steps.
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


class SeqModel(torch.nn.Module):
    def __init__(self, vocab, d_model, layers, heads, classes):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d_model)
        self.stem = torch.nn.Conv1d(d_model, d_model, kernel_size=5, padding=2)
        layer = torch.nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0,
                                                 batch_first=True, norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.head = torch.nn.Linear(d_model, classes)

    def forward(self, tokens):
        x = self.emb(tokens)                               # (B, L, D)
        x = self.stem(x.transpose(1, 2)).transpose(1, 2)   # cuDNN conv: shape-dependent tuning
        x = self.enc(x)
        return self.head(x)                                # per-token classes


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    common.add_numeric_options(p, batch_size=32, min_len=32, max_len=1024)
    p.add_argument("--fixed-len", action="store_true", help="pad every batch to --max-len")
    common.add_numeric_options(p, d_model=512, layers=4, heads=8, vocab=8192, classes=1024)
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    if not (1 <= args.min_len <= args.max_len):
        p.error("need 1 <= --min-len <= --max-len")
    torch.backends.cudnn.benchmark = True

    model = SeqModel(args.vocab, args.d_model, args.layers, args.heads, args.classes).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loss_fn = torch.nn.CrossEntropyLoss()
    rng = random.Random(args.seed)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    seen = set()

    def step():
        n = rng.randint(args.min_len, args.max_len)  # the real content length of this batch
        L = args.max_len if args.fixed_len else n
        seen.add(L)
        tokens = torch.randint(0, args.vocab, (args.batch_size, L), device=dev, generator=gen)
        target = torch.randint(0, args.classes, (args.batch_size, L), device=dev, generator=gen)
        if args.fixed_len and n < L:
            tokens[:, n:] = 0          # padding token
            target[:, n:] = -100       # ignored by the loss
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens)
            loss = loss_fn(logits.reshape(-1, args.classes).float(), target.reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    params = common.vars_of(args)
    params.update(cudnn_benchmark=True, precision="bf16 autocast")
    if args.fixed_len:
        name, classes = "dynamic_shapes_fixed", ["none"]
        desc = ("Control run of dynamic_shapes: the same transformer with a Conv1d stem, but every batch is "
                "padded to %d tokens (padding ignored by the loss), so there is a single shape, cuDNN tunes "
                "once and step times are steady." % args.max_len)
    else:
        name, classes = "dynamic_shapes", ["schedule_shape"]
        desc = ("A %d-layer transformer (d_model %d) with a Conv1d stem, bf16 autocast, batch %d, trained on "
                "batches whose sequence length is drawn uniformly from %d..%d every step. With "
                "cudnn.benchmark=True each new length triggers a new cuDNN algorithm search for the "
                "convolution and the caching allocator meets new block sizes, so step times vary widely and "
                "the GPU waits while the host re-plans; padding or bucketing the lengths would fix it." % (
                    args.layers, args.d_model, args.batch_size, args.min_len, args.max_len))
    gt = common.GroundTruth(args, name, classes, desc, params, args.batch_size, args.batch_size,
                            extra={"distinct_lengths": seen})
    # sets are not JSON: convert when writing
    orig = gt.to_dict

    def to_dict():
        d = orig()
        d["distinct_lengths"] = len(seen)
        return d
    gt.to_dict = to_dict
    common.run(gt, step)


if __name__ == "__main__":
    main()
