"""none: attention-heavy bf16 training whose kernels run at low occupancy by design.

A stack of causal self-attention blocks over long sequences (16384 tokens by
default) with few heads (4 of dimension 128): nearly all the time goes to
scaled_dot_product_attention forward and backward.  Fused attention kernels
(flash attention and its kin) hold a large tile of Q, K and V in shared
memory and many registers per thread, so one or two thread blocks fit on an
SM and the achieved occupancy is low (a few warps of 64 per SM), by design:
they hide memory latency with the tile held on chip and keep the tensor cores
fed.  The grid (batch x heads x query tiles) covers every SM several times and
the step has no gaps: the GPU is busy doing useful work.  Low occupancy is not
a small batch here: no bottleneck to report.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402

BACKENDS = ("default", "flash", "cudnn", "efficient")


class AttnBlock(torch.nn.Module):
    def __init__(self, d_model, heads):
        super().__init__()
        self.heads = heads
        self.norm = torch.nn.LayerNorm(d_model)
        self.qkv = torch.nn.Linear(d_model, 3 * d_model, bias=False)
        self.out = torch.nn.Linear(d_model, d_model, bias=False)

    def forward(self, x):
        B, L, D = x.shape
        q, k, v = self.qkv(self.norm(x)).view(B, L, 3, self.heads, D // self.heads).permute(2, 0, 3, 1, 4)
        y = torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=True)
        return x + self.out(y.transpose(1, 2).reshape(B, L, D))


def backend_context(name):
    """(factory of a fresh context that restricts SDPA to one backend, label).
    sdpa_kernel's context is single-use, hence a factory; 'default' or an old
    torch gives a context that does nothing."""
    import contextlib
    if name == "default":
        return contextlib.nullcontext, "default"
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        b = {"flash": SDPBackend.FLASH_ATTENTION, "cudnn": SDPBackend.CUDNN_ATTENTION,
             "efficient": SDPBackend.EFFICIENT_ATTENTION}[name]
        return (lambda: sdpa_kernel([b])), name
    except Exception as e:
        common.log("note: cannot pin the SDPA backend to %s (%s); torch chooses" % (name, e))
        return contextlib.nullcontext, "default (pinning %s failed)" % name


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    common.add_numeric_options(p, batch_size=2, seq_len=16384, heads=4, head_dim=128, layers=4)
    p.add_argument("--backend", choices=BACKENDS, default="flash",
                   help="SDPA backend to pin (default %(default)s; falls back to torch's choice if it cannot)")
    args = common.parse_args(p)
    if min(args.batch_size, args.seq_len, args.heads, args.head_dim, args.layers) < 1:
        p.error("sizes must be >= 1")
    dev = common.setup_cuda(args.seed)
    D = args.heads * args.head_dim

    model = torch.nn.Sequential(*[AttnBlock(D, args.heads) for _ in range(args.layers)]).to(dev, torch.bfloat16)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    x = torch.randn(args.batch_size, args.seq_len, D, device=dev, dtype=torch.bfloat16, generator=gen)
    ctx, backend = backend_context(args.backend)
    # one trial step: a pinned backend that cannot run this shape falls back to torch's choice
    try:
        with ctx():
            model(x).float().pow(2).mean().backward()
        torch.cuda.synchronize()
    except RuntimeError as e:
        common.log("note: SDPA backend %s failed (%s); torch chooses" % (args.backend, str(e)[:200]))
        ctx, backend = backend_context("default")
        backend = "default (%s failed)" % args.backend
    model.zero_grad(set_to_none=True)
    probe = common.PowerProbe(0).start()

    def step():
        with ctx():
            loss = model(x).float().pow(2).mean()
            opt.zero_grad(set_to_none=True)
            loss.backward()
        opt.step()

    L, H, d, B = args.seq_len, args.heads, args.head_dim, args.batch_size
    # causal attention: half of the L x L scores; forward 2 products, backward 5 (flash recomputes the scores)
    attn_flop = 7 * 2 * B * H * (L * L / 2) * d * args.layers
    proj_flop = 3 * 2 * B * L * D * (4 * D) * args.layers  # qkv + out projections, forward and backward
    params = common.vars_of(args)
    params.update(sdpa_backend=backend, param_bytes=common.param_bytes(model), precision="bf16",
                  attention_flop_per_step=attn_flop, projection_flop_per_step=proj_flop,
                  attention_flop_share=round(attn_flop / (attn_flop + proj_flop), 3),
                  thread_blocks_per_attention_call=B * H * ((L + 127) // 128))
    gt = common.GroundTruth(
        args, "attention_lowocc", ["none"],
        "%d causal self-attention blocks in bf16 over batch %d x %d tokens with %d heads of dimension %d "
        "(d_model %d): about %.0f%% of the step's floating-point work is scaled_dot_product_attention "
        "(backend %s), forward and backward, data kept on the GPU, no syncs but the step boundary. Fused "
        "attention kernels keep a large Q/K/V tile in shared memory and many registers per thread, so "
        "only one or two thread blocks fit on an SM and achieved occupancy is low by design, while the grid "
        "(batch x heads x query tiles, about %d blocks per call) covers every SM several times and the "
        "tensor cores stay fed. The GPU is busy with useful work: no bottleneck. Low occupancy here is not "
        "a small batch." % (
            args.layers, B, L, H, d, D, 100 * attn_flop / (attn_flop + proj_flop), backend,
            B * H * ((L + 127) // 128)),
        params, B, B)
    gt.late_extra.append(lambda g: {"power": probe.summary(g.started_ns, g.ended_ns)})
    common.run(gt, step)


if __name__ == "__main__":
    main()
