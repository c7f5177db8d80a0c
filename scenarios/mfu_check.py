"""MFU acceptance workloads (issue 38): each prints its analytic FLOPs per
training step and its own measured step time, for comparison with what
`gpuwhy report --format json` says (mfu[].flops_per_step, achieved_tflops).

  python scenarios/mfu_check.py --model transformer|resnet|mlp [--seconds 20] [--device cuda|cpu]

Analytic counts (forward + backward, a multiply-add = 2 FLOPs, matmuls and
convolutions only, as FlopCounterMode counts):
  transformer (bf16 autocast): 6 * N * tokens + 12 * layers * seq * d_model * tokens,
    N = 12 * layers * d_model^2 + d_model * vocab (the matmul weights; no biases;
    embedding lookups are not matmuls); attention written as two matmuls, full s x s.
  resnet-style conv net (fp32, TF32 per cudnn.allow_tf32): per conv 2 * Cin * Cout * k^2 * Hout * Wout * batch
    forward; x3 for training, x2 for the first conv (its input needs no gradient); the linear head x3.
  mlp (fp32, small batch): per layer 2 * batch * d_in * d_out forward; x3, x2 for the first layer.
Lines printed (one each, "key value"): model, device, analytic_flops_per_step,
measured_step_s (median of steps after 10 warm-up steps, each ended by a
synchronize), analytic_tflops_per_s, steps.
"""
import argparse
import statistics
import time

import torch
import torch.nn as nn
import torch.nn.functional as F

p = argparse.ArgumentParser()
p.add_argument("--model", choices=["transformer", "resnet", "mlp"], required=True)
p.add_argument("--seconds", type=float, default=20.0)
p.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
p.add_argument("--small", action="store_true", help="tiny sizes (CPU smoke test)")
a = p.parse_args()
dev = torch.device(a.device)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.ln1, self.ln2 = nn.LayerNorm(d), nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)
        self.fc1 = nn.Linear(d, 4 * d, bias=False)
        self.fc2 = nn.Linear(4 * d, d, bias=False)

    def forward(self, x):
        b, s, d = x.shape
        h = self.heads
        q, k, v = self.qkv(self.ln1(x)).view(b, s, 3, h, d // h).permute(2, 0, 3, 1, 4)
        att = (q @ k.transpose(-1, -2)) * (d // h) ** -0.5  # b h s s: 2*s*s*d FLOPs forward
        mask = torch.ones(s, s, device=x.device, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf")).softmax(-1)
        y = (att @ v).transpose(1, 2).reshape(b, s, d)  # 2*s*s*d
        x = x + self.proj(y)
        return x + self.fc2(F.gelu(self.fc1(self.ln2(x))))


class GPT(nn.Module):
    def __init__(self, vocab, d, layers, heads, seq):
        super().__init__()
        self.tok = nn.Embedding(vocab, d)
        self.pos = nn.Embedding(seq, d)
        self.blocks = nn.ModuleList(Block(d, heads) for _ in range(layers))
        self.ln = nn.LayerNorm(d)
        self.head = nn.Linear(d, vocab, bias=False)

    def forward(self, idx):
        x = self.tok(idx) + self.pos(torch.arange(idx.shape[1], device=idx.device))
        for blk in self.blocks:
            x = blk(x)
        return self.head(self.ln(x))


def transformer():
    vocab, d, layers, heads, seq, batch = (512, 64, 2, 4, 32, 4) if a.small else (32768, 1024, 12, 16, 1024, 8)
    model = GPT(vocab, d, layers, heads, seq).to(dev)
    tokens = batch * seq
    n_matmul = 12 * layers * d * d + d * vocab
    flops = 6 * n_matmul * tokens + 12 * layers * seq * d * tokens
    x = torch.randint(0, vocab, (batch, seq), device=dev)
    y = torch.randint(0, vocab, (batch, seq), device=dev)

    def loss():
        with torch.autocast(dev.type, dtype=torch.bfloat16):
            return F.cross_entropy(model(x).float().view(-1, vocab), y.view(-1))

    return model, loss, flops


def conv_out(h, k, s, pad):
    return (h + 2 * pad - k) // s + 1


def resnet():
    batch, hw, widths = (2, 32, [8, 16]) if a.small else (64, 224, [64, 128, 256, 512])
    layers, flops, c, h, first = [], 0, 3, hw, True

    def conv(cin, cout, k, s):
        nonlocal h, flops, first
        pad = k // 2
        h = conv_out(h, k, s, pad)
        fwd = 2 * cin * cout * k * k * h * h * batch
        flops += fwd * (2 if first else 3)
        first = False
        return [nn.Conv2d(cin, cout, k, s, pad, bias=False), nn.BatchNorm2d(cout), nn.ReLU()]

    layers += conv(c, widths[0], 7, 2)
    c = widths[0]
    for i, w in enumerate(widths):
        layers += conv(c, w, 3, 1 if i == 0 else 2)
        layers += conv(w, w, 3, 1)
        c = w
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(c, 1000, bias=False)]
    flops += 3 * 2 * batch * c * 1000
    model = nn.Sequential(*layers).to(dev)
    x = torch.randn(batch, 3, hw, hw, device=dev)
    y = torch.randint(0, 1000, (batch,), device=dev)
    return model, lambda: F.cross_entropy(model(x), y), flops


def mlp():
    batch, d, depth = (4, 64, 3) if a.small else (8, 4096, 8)
    layers, flops = [], 0
    for i in range(depth):
        layers += [nn.Linear(d, d, bias=False), nn.ReLU()]
        flops += 2 * batch * d * d * (2 if i == 0 else 3)
    model = nn.Sequential(*layers).to(dev)
    x = torch.randn(batch, d, device=dev)
    return model, lambda: model(x).square().mean(), flops


model, loss_fn, flops = {"transformer": transformer, "resnet": resnet, "mlp": mlp}[a.model]()
opt = torch.optim.AdamW(model.parameters(), lr=1e-4)


def sync():
    if dev.type == "cuda":
        torch.cuda.synchronize()


times, t_end = [], time.time() + a.seconds
step = 0
while time.time() < t_end or step < 30:
    t0 = time.perf_counter()
    opt.zero_grad(set_to_none=True)
    loss_fn().backward()
    opt.step()
    sync()
    if step >= 10:
        times.append(time.perf_counter() - t0)
    step += 1
med = statistics.median(times)
print("model %s" % a.model)
print("device %s" % (torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu"))
print("analytic_flops_per_step %d" % flops)
print("measured_step_s %.6f" % med)
print("analytic_tflops_per_s %.3f" % (flops / med / 1e12))
print("steps %d" % step)
