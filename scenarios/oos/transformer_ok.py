"""LABEL: none

A healthy job: a bf16-autocast transformer encoder (8 layers, d_model 1024, 16 heads, FFN 4096,
vocabulary 16384, ~135M parameters) trained with AdamW on GPU-resident token batches of
32 x 512; no synchronisation per step except one .item() every 50 steps for a log line.
usage: python3 transformer_ok.py SECONDS
"""

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 32
SEQ = 512
D_MODEL = 1024
HEADS = 16
LAYERS = 8
VOCAB = 16384
POOL_BATCHES = 16
LOG_EVERY = 50


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.tok = nn.Embedding(VOCAB, D_MODEL)
        self.pos = nn.Embedding(SEQ, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, HEADS, dim_feedforward=4 * D_MODEL, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, VOCAB)

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        h = self.tok(tokens) + self.pos(pos)
        return self.head(self.norm(self.body(h)))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = Encoder().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4, weight_decay=0.01)
    pool = torch.randint(0, VOCAB, (POOL_BATCHES, BATCH, SEQ + 1), device=dev)
    _oos.log("params %.1fM, batch %d x %d tokens, bf16 autocast" % (_oos.n_params(model) / 1e6, BATCH, SEQ))

    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        seq = pool[i % POOL_BATCHES]
        x, y = seq[:, :-1], seq[:, 1:]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, VOCAB), y.reshape(-1))
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
        if i % LOG_EVERY == 0:
            _oos.log("step %d loss %.4f" % (i, loss.item()))
    loop.finish()
    loop.result("transformer_ok", tokens_per_s=loop.samples * SEQ / loop.elapsed)


if __name__ == "__main__":
    main()
