"""none: a compute-bound, well-fed training job.

A transformer encoder (8 layers, d_model 1024) trained in bf16 autocast on
large batches of token ids generated on the GPU, fused AdamW, no host syncs
other than the step boundary.  The GPU has all the work it can do: there is
no bottleneck to report.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


class LM(torch.nn.Module):
    def __init__(self, vocab, d_model, layers, heads):
        super().__init__()
        self.emb = torch.nn.Embedding(vocab, d_model)
        layer = torch.nn.TransformerEncoderLayer(d_model, heads, 4 * d_model, dropout=0.0,
                                                 batch_first=True, norm_first=True)
        self.enc = torch.nn.TransformerEncoder(layer, layers, enable_nested_tensor=False)
        self.norm = torch.nn.LayerNorm(d_model)
        self.head = torch.nn.Linear(d_model, vocab)

    def forward(self, tokens):
        return self.head(self.norm(self.enc(self.emb(tokens))))


def add_options(p):
    """The model and batch options (shared with logging_thread.py, which trains the same job)."""
    common.add_numeric_options(p, batch_size=32, seq_len=512, d_model=1024, layers=8, heads=16, vocab=8192)


def make_train_step(args, dev, after_step=None, tokens_from=None):
    """(model, fused, step): the language-model train step; after_step(loss) runs at its end, if given;
    tokens_from() gives each step's (batch, seq_len + 1) token ids on the device (default: made on the GPU)."""
    model = LM(args.vocab, args.d_model, args.layers, args.heads).to(dev)
    try:
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4, fused=True)
        fused = True
    except Exception:  # older builds without the fused kernel
        opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
        fused = False
    loss_fn = torch.nn.CrossEntropyLoss()
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    B, L = args.batch_size, args.seq_len

    def step():
        if tokens_from is None:
            tokens = torch.randint(0, args.vocab, (B, L + 1), device=dev, generator=gen)
        else:
            tokens = tokens_from()
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(tokens[:, :-1])
            loss = loss_fn(logits.reshape(-1, args.vocab).float(), tokens[:, 1:].reshape(-1))
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        if after_step is not None:
            after_step(loss)
    return model, fused, step


def truth_params(args, model, fused, **more):
    """The truth's params of a run of this job (also logging_thread.py's and healthy_dataloader.py's)."""
    params = common.vars_of(args)
    params.update(param_bytes=common.param_bytes(model), precision="bf16 autocast", fused_adamw=fused,
                  tokens_per_step=args.batch_size * args.seq_len, **more)
    return params


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    add_options(p)
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    model, fused, step = make_train_step(args, dev)
    B, L = args.batch_size, args.seq_len

    params = truth_params(args, model, fused)
    gt = common.GroundTruth(
        args, "healthy", ["none"],
        "A %d-layer transformer encoder (d_model %d, %d heads, %.0f M parameters) trained as a language "
        "model in bf16 autocast on batches of %d x %d tokens generated on the GPU, with fused AdamW and no "
        "host syncs other than the step boundary. Large matmuls keep the tensor cores busy and nothing "
        "makes the GPU wait: a healthy, compute-bound job (it may well sit at the power limit, which is "
        "not a fault)." % (args.layers, args.d_model, args.heads,
                          sum(p.numel() for p in model.parameters()) / 1e6, B, L),
        params, B, B)
    common.run(gt, step)


if __name__ == "__main__":
    main()
