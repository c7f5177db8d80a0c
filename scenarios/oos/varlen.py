"""LABEL: schedule_shape

Dynamic shapes: a transformer encoder (6 layers, d_model 512, 8 heads, FFN 2048, vocabulary 16384,
bf16 autocast, AdamW) on batches of 16 sequences cut from a GPU-resident token pool, with the
sequence length drawn uniformly from 32..1024 at every step, so nearly every step meets a new
shape. --fixed: the same program with the length fixed at the mean, 528 (the same tokens per step
on average), for an A/B comparison of throughput (tokens_per_s in RESULT).
usage: python3 varlen.py SECONDS [--fixed]
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 16
MIN_LEN, MAX_LEN = 32, 1024
FIXED_LEN = (MIN_LEN + MAX_LEN) // 2  # 528, the mean of the uniform draw
D_MODEL = 512
LAYERS = 6
VOCAB = 16384
POOL_ROWS = 4096


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(MAX_LEN, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, 8, dim_feedforward=4 * D_MODEL, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        return self.head(self.norm(self.body(self.tok(tokens) + self.pos(pos))))


def main():
    seconds, fixed = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = Encoder().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    pool = torch.randint(0, VOCAB, (POOL_ROWS, MAX_LEN + 1), device=dev)
    lengths = random.Random(99)
    _oos.log("params %.1fM, batch %d, length %s" % (
        _oos.n_params(model) / 1e6, BATCH, FIXED_LEN if fixed else "%d..%d" % (MIN_LEN, MAX_LEN)))

    loop = _oos.Loop(seconds)
    tokens = 0
    seen = set()
    while loop.running():
        n = FIXED_LEN if fixed else lengths.randint(MIN_LEN, MAX_LEN)
        seen.add(n)
        rows = torch.randint(0, POOL_ROWS, (BATCH,), device=dev)
        seq = pool[rows, :n + 1]
        x, y = seq[:, :-1], seq[:, 1:]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        tokens += BATCH * n
    loop.finish()
    loop.result("varlen", tokens_per_s=tokens / loop.elapsed, shapes=len(seen),
                mode="fixed" if fixed else "varlen")


if __name__ == "__main__":
    main()
