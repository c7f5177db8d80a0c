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

Measured on the H200 (2026-12-01) the stream drew 91% of its limit: moving
HBM at 81% of its bandwidth costs nearly what tensor-core work does.  Two
other workloads, each always busy and GPU-bound, stay further from the
limit by their nature (--workload):
  fp32_mlp  an MLP trained in plain fp32 with TF32 off (torch's default for
            matmul), large batch: the FP32 CUDA-core pipes are the limit, and
            they switch far fewer bits a cycle than the tensor cores (the
            fp32 batch sweep of tests/fixtures/scenarios drew 75-77% at
            batches 1024-2048, where a larger batch no longer helps);
  sfu       one fused element-wise kernel (torch.cuda.jiterator, compiled by
            NVRTC in the process, no compile workers) that runs a chain of
            sin/cos on each element of a tensor: compute-bound on the FP32 pipes
            (sinf/cosf are range reduction and a polynomial), with the special
            function units, DRAM and tensor cores nearly idle.
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


# One line: jiterator's parser reads the function with a regular expression
# that does not cross line ends. ROUNDS is replaced by the count.
SFU_CHAIN = ("template <typename T> T sfu_chain(T x) { float y = float(x); for (int i = 0; i < ROUNDS; ++i) "
             "{ y = sinf(y) * 0.75f + cosf(y) * 0.25f; } return T(y); }")


def main_fp32_mlp(args, dev):
    """An fp32 MLP at a large batch with TF32 off: FP32 CUDA-core GEMMs."""
    torch.backends.cuda.matmul.allow_tf32 = False
    torch.backends.cudnn.allow_tf32 = False
    model = common.make_mlp(args.dim, args.dim, args.layers, 1000).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    x = torch.randn(args.rows, args.dim, device=dev, generator=gen)
    y = torch.randint(0, 1000, (args.rows,), device=dev, generator=gen)
    loss_fn = torch.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad(set_to_none=True)
        loss_fn(model(x), y).backward()
        opt.step()

    text = ("An MLP of %d hidden layers of width %d trained in plain fp32 with TF32 off at batch %d, SGD, data kept "
            "on the GPU, no syncs but the step boundary: every GEMM runs on the FP32 CUDA-core pipes with a full "
            "grid, so the GPU is always busy and the FP32 pipes are the limit; the tensor cores never run, so "
            "the board draws under its power limit (the truth's power block holds the measured median and its "
            "share). A healthy, GPU-bound job: no bottleneck. No GPU setting was changed." % (
                args.layers, args.dim, args.rows))
    return model, step, text, {"precision": "fp32, tf32 off", "matmuls": 2 * (args.layers + 1)}


def main_sfu(args, dev):
    """One jiterator kernel per step: a sin/cos chain on every element."""
    chain = torch.cuda.jiterator._create_jit_fn(SFU_CHAIN.replace("ROUNDS", str(args.sfu_rounds)))
    scale = torch.nn.Parameter(torch.ones(args.dim, device=dev))
    model = torch.nn.ParameterList([scale])
    opt = torch.optim.SGD(model.parameters(), lr=1e-3)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    x = torch.randn(args.rows, args.dim, device=dev, generator=gen)

    def step():
        opt.zero_grad(set_to_none=True)
        h = chain(x)  # not differentiated: the work is the chain itself
        (h * scale).mean().backward()
        opt.step()

    text = ("Each step runs one fused element-wise kernel (torch.cuda.jiterator, compiled by NVRTC in the process) "
            "that applies %d rounds of sin/cos to each of %d x %d fp32 values, then a per-feature scale learned "
            "by SGD: the kernel is compute-bound on the FP32 pipes (sinf/cosf are range reduction and a "
            "polynomial) with a full grid, DRAM and tensor cores nearly idle, so the GPU is always busy and the board draws under its power limit "
            "(the truth's power block). A healthy, GPU-bound job: no bottleneck. No GPU setting was changed." % (
                args.sfu_rounds, args.rows, args.dim))
    return model, step, text, {"precision": "fp32", "matmuls": 0}


def main():
    p = common.make_parser(__doc__.splitlines()[0])
    p.add_argument("--workload", choices=("stream", "fp32_mlp", "sfu"), default="stream",
                   help="what keeps the GPU busy (default %(default)s; the module's text says why each draws less "
                        "power than tensor-core work)")
    p.add_argument("--rows", type=int, default=None, help="batch rows (default 16384; fp32_mlp 8192)")
    p.add_argument("--dim", type=int, default=None, help="feature width (default 8192; fp32_mlp 4096)")
    p.add_argument("--layers", type=int, default=8)
    p.add_argument("--sfu-rounds", type=int, default=64, help="sin/cos rounds per element (--workload sfu)")
    args = common.parse_args(p)
    mlp = args.workload == "fp32_mlp"
    args.rows = args.rows or (8192 if mlp else 16384)
    args.dim = args.dim or (4096 if mlp else 8192)
    if args.rows < 1 or args.dim < 1 or args.layers < 1 or args.sfu_rounds < 1:
        p.error("--rows, --dim, --layers and --sfu-rounds must be >= 1")
    dev = common.setup_cuda(args.seed)
    if args.workload != "stream":
        model, step, text, extra = (main_fp32_mlp if mlp else main_sfu)(args, dev)
        probe = common.PowerProbe(0).start()
        params = common.vars_of(args)
        params.update(param_bytes=common.param_bytes(model), **extra)
        gt = common.GroundTruth(args, "healthy_midpower", ["none"], text, params, args.rows, args.rows)
        gt.late_extra.append(lambda g: {"power": probe.summary(g.started_ns, g.ended_ns)})
        common.run(gt, step)
        return

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
