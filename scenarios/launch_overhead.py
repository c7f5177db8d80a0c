"""launch_overhead: thousands of tiny kernels per step.

The model is a Python loop over hundreds of blocks, each a few elementwise ops
on a 64x64 tensor (and a 64x64 linear every fourth block).  Each kernel runs
for a microsecond or two, while the host needs several microseconds to launch
it, so the GPU idles between kernels and the main thread is at 100% CPU.
--sync-every-op adds a .item() after every block and a log line per step,
which also makes the host wait for the GPU hundreds of times a step.
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402


class TinyOps(torch.nn.Module):
    def __init__(self, blocks, dim, linear_every):
        super().__init__()
        self.blocks = blocks
        self.linear_every = linear_every
        self.scale = torch.nn.ParameterList([torch.nn.Parameter(torch.ones(dim)) for _ in range(blocks)])
        self.shift = torch.nn.ParameterList([torch.nn.Parameter(torch.zeros(dim)) for _ in range(blocks)])
        n_lin = blocks // linear_every if linear_every > 0 else 0
        self.lins = torch.nn.ModuleList([torch.nn.Linear(dim, dim, bias=False) for _ in range(n_lin)])
        for lin in self.lins:
            torch.nn.init.eye_(lin.weight)
            with torch.no_grad():
                lin.weight.add_(0.01 * torch.randn_like(lin.weight))
        self.sync = False
        self.seen = []

    def forward(self, x):
        j = 0
        for i in range(self.blocks):
            x = torch.tanh(x * self.scale[i] + self.shift[i])
            if self.linear_every > 0 and (i + 1) % self.linear_every == 0 and j < len(self.lins):
                x = self.lins[j](x)
                j += 1
            if self.sync:
                self.seen.append(x.mean().item())  # host waits for the GPU here
        return x


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=3)
    common.add_numeric_options(p, blocks=400, dim=64, batch_size=64, linear_every=4)
    p.add_argument("--sync-every-op", action="store_true",
                   help=".item() after every block and one log line per step")
    p.add_argument("--log-file", default=None,
                   help="per-step log for --sync-every-op (default: /tmp/gpuwhy_scn/launch_<pid>.log)")
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)

    model = TinyOps(args.blocks, args.dim, args.linear_every).to(dev)
    model.sync = args.sync_every_op
    opt = torch.optim.SGD(model.parameters(), lr=1e-3, momentum=0.9)
    gen = torch.Generator(device=dev)
    gen.manual_seed(args.seed)
    logf = None
    log_path = None
    if args.sync_every_op:
        log_path = args.log_file or os.path.join("/tmp/gpuwhy_scn", "launch_%d.log" % os.getpid())
        os.makedirs(os.path.dirname(os.path.abspath(log_path)), exist_ok=True)
        logf = open(log_path, "w")
    state = {"n": 0}

    def step():
        x = torch.randn(args.batch_size, args.dim, device=dev, generator=gen)
        out = model(x)
        loss = (out * out).mean()
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        state["n"] += 1
        if logf is not None:
            vals = model.seen
            model.seen = []
            print("step %d loss %.6f act_mean_first %.5f act_mean_last %.5f" % (
                state["n"], loss.item(), vals[0] if vals else 0.0, vals[-1] if vals else 0.0),
                file=logf, flush=True)

    def cleanup():
        if logf is not None:
            logf.close()
            common.remove_files(log_path, ignore=OSError)

    n_lin = len(model.lins)
    fwd_kernels = 3 * args.blocks + n_lin
    params = common.vars_of(args)
    params.update(approx_forward_kernels=fwd_kernels,
                  syncs_per_step=(args.blocks + 1) if args.sync_every_op else 0)
    if args.sync_every_op:
        name = "launch_tiny_ops_syncs"
        desc = ("Each step runs a Python loop over %d blocks of elementwise ops on a %dx%d tensor (%d tiny "
                "linears among them): about %d forward kernels and roughly twice as many in backward, each a "
                "microsecond or two long. In addition every block calls .item() on its mean and the step writes "
                "a log line with loss.item(), so the host blocks on the GPU about %d times a step and the GPU "
                "idles while the host launches the next op. Launch-bound with frequent syncs." % (
                    args.blocks, args.batch_size, args.dim, n_lin, fwd_kernels, args.blocks + 1))
    else:
        name = "launch_tiny_ops"
        desc = ("Each step runs a Python loop over %d blocks of elementwise ops on a %dx%d tensor (%d tiny "
                "linears among them): about %d forward kernels and roughly twice as many in backward, each a "
                "microsecond or two long. Launching a kernel costs the host more than the kernel costs the GPU, "
                "so the GPU sits in gaps between kernels while the main Python thread runs at 100%% CPU; "
                "nvidia-smi utilisation looks moderate while real SM activity is near zero." % (
                    args.blocks, args.batch_size, args.dim, n_lin, fwd_kernels))
    gt = common.GroundTruth(args, name, ["launch_overhead"], desc, params, args.batch_size, args.batch_size)
    common.run(gt, step, on_exit=cleanup)


if __name__ == "__main__":
    main()
