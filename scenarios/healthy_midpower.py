"""none: a healthy, memory-bandwidth-bound job well under its power limit.

A training step made only of the memory-bound part of a network: --layers
residual blocks of layer norm, GELU, a learned per-feature scale and a
residual add over an activation of --rows x --dim fp32 values (512 MiB by
default), forward and backward, SGD on the per-feature parameters.  Every
kernel streams hundreds of megabytes with a full grid: the GPU is always busy
and its memory bandwidth is the limit, but the tensor cores never run, so the
board draws well under its power limit (60-80% expected on an H200; the
truth's power block holds what it drew).  That is the nature of the work, not
a fault: no bottleneck to report, and neither power nor math-pipe fill says
the batch is small.  No GPU setting is changed.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


class NormStack(torch.nn.Module):
    """Residual blocks without matrix products: h + gelu(layer_norm(h)) * scale."""

    def __init__(self, dim, layers):
        super().__init__()
        self.norms = torch.nn.ModuleList(torch.nn.LayerNorm(dim) for _ in range(layers))
        self.scales = torch.nn.ParameterList(torch.nn.Parameter(torch.full((dim,), 0.1)) for _ in range(layers))

    def forward(self, h):
        for norm, scale in zip(self.norms, self.scales):
            h = h + torch.nn.functional.gelu(norm(h)) * scale
        return h


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=16384)
    p.add_argument("--dim", type=int, default=8192)
    p.add_argument("--layers", type=int, default=8)
    args = common.parse_args(p)
    if args.rows < 1 or args.dim < 1 or args.layers < 1:
        p.error("--rows, --dim and --layers must be >= 1")
    dev = common.setup_cuda(args.seed)

    model = NormStack(args.dim, args.layers).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    x = torch.randn(args.rows, args.dim, device=dev, generator=gen)
    probe = common.PowerProbe(0).start()

    def step():
        h = model(x)
        loss = h.pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    act_bytes = args.rows * args.dim * 4
    params = common.vars_of(args)
    params.update(activation_bytes=act_bytes, param_bytes=common.param_bytes(model), precision="fp32",
                  matmuls=0)
    gt = common.GroundTruth(
        args, "healthy_midpower", ["none"],
        "A training step made only of memory-bound work: %d residual blocks of layer norm, GELU, a learned "
        "per-feature scale and a residual add over a %d x %d fp32 activation (%.0f MiB), forward and "
        "backward, SGD on the per-feature parameters, data kept on the GPU, no syncs but the step boundary. "
        "Every kernel streams hundreds of MiB with a full grid, so the GPU is always busy and DRAM "
        "bandwidth is the limit; the tensor cores never run, so the board draws well under its power limit "
        "(the truth's power block holds the measured median and its share of the limit). That is the "
        "nature of the work: a healthy, GPU-bound job, no bottleneck. Low power and low math-pipe fill do "
        "not mean a small batch here. No GPU setting was changed." % (
            args.layers, args.rows, args.dim, act_bytes / 2 ** 20),
        params, args.rows, args.rows)
    gt.late_extra.append(lambda g: {"power": probe.summary(g.started_ns, g.ended_ns)})
    common.run(gt, step)


if __name__ == "__main__":
    main()
