"""none: full-load bf16 matmuls that run the GPU at its power limit.

A training-like loop over a stack of 8192x8192 bf16 weight matrices, with an
8192x8192 bf16 input kept on the GPU: forward, backward and an SGD step, no
syncs other than the step boundary.  The GPU reaches its power limit and the
driver lowers the SM clock (clock event reason "SW power cap").  That is the
hardware doing as much as its power budget allows, not a fault: the expected
verdict is "none".  The suite also runs this script as hardware_xid, with a
kernel-log fixture of Xid errors given to the recorder.
"""

import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    p.add_argument("--n", type=int, default=8192, help="matrix size (default %(default)s)")
    p.add_argument("--layers", type=int, default=4)
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)

    n = args.n
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    weights = []
    for _ in range(args.layers):
        w = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=gen) * (1.0 / math.sqrt(n))
        weights.append(torch.nn.Parameter(w))
    x = torch.randn(n, n, device=dev, dtype=torch.bfloat16, generator=gen)
    opt = torch.optim.SGD(weights, lr=1e-6)

    def step():
        h = x
        for w in weights:
            h = h @ w
        loss = h.float().pow(2).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()

    flops = 3 * args.layers * 2 * n ** 3
    params = common.vars_of(args)
    params.update(dtype="bfloat16", flops_per_step=flops)
    gt = common.GroundTruth(
        args, "power_cap", ["none"],
        "Full-load bf16 training-like loop: %d chained %dx%d matmuls forward, their backward and an SGD "
        "step, with the %dx%d input kept on the GPU (about %.1f TFLOP a step, no syncs except the step "
        "boundary). Tensor cores stay busy and the GPU runs at its power limit, so the driver reports SW "
        "power cap and the SM clock drops below its maximum. That clock drop is the physical power budget "
        "at work, not a fault or a bottleneck to fix: the expected verdict is none." % (
            args.layers, n, n, n, n, flops / 1e12),
        params, n, n)
    common.run(gt, step)


if __name__ == "__main__":
    main()
