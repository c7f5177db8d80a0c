"""LABEL: input_pipeline

A DataLoader with num_workers=0: every sample is made in the training process itself. The
Dataset's __getitem__ writes a random text of about 400 words drawn from a 5,000-word vocabulary
(random.choice in Python), splits it and maps each word to its id through a dict, keeping the
first 256 ids as a LongTensor; the model is a token embedding + 4-layer transformer encoder
(d_model 512, 8 heads, bf16 autocast, AdamW) on batches of 32 x 256 tokens. Making 32 texts in
the loop's own thread takes far longer than the GPU's step: the GPU waits for each batch.
usage: python3 collate_main.py SECONDS
"""

import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

VOCAB = 5000
WORDS = 400
SEQ = 256
BATCH = int(os.environ.get("OOS_BATCH", "32"))
# OOS_CACHED=1: the first batch, kept on the GPU, stands for every batch (the loop without its input)
CACHED = os.environ.get("OOS_CACHED") == "1"
D = 512


class Texts(torch.utils.data.Dataset):
    def __init__(self):
        rng = random.Random(7)
        self.words = ["w%d%s" % (i, "".join(rng.choice("abcdefgh") for _ in range(4))) for i in range(VOCAB)]
        self.ids = {w: i for i, w in enumerate(self.words)}

    def __len__(self):
        return 1 << 30

    def __getitem__(self, index):
        rng = random.Random(index)
        text = " ".join(rng.choice(self.words) for _ in range(WORDS))
        ids = [self.ids[w] for w in text.split()][:SEQ]
        return torch.tensor(ids, dtype=torch.long)


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.emb = nn.Embedding(VOCAB, D)
        layer = nn.TransformerEncoderLayer(D, 8, 4 * D, batch_first=True)
        self.enc = nn.TransformerEncoder(layer, 4)
        self.out = nn.Linear(D, VOCAB)

    def forward(self, x):
        return self.out(self.enc(self.emb(x)))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    model = Model().to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(Texts(), batch_size=BATCH, shuffle=False, num_workers=0)
    _oos.log("params %.1fM, batch %d x %d, num_workers=0" % (_oos.n_params(model) / 1e6, BATCH, SEQ))
    loop = _oos.Loop(seconds)
    cached = next(iter(loader)).to(dev) if CACHED else None
    for batch in (iter(lambda: cached, None) if CACHED else loader):
        if not loop.running():
            break
        x = batch.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x[:, :-1])
            loss = F.cross_entropy(logits.reshape(-1, VOCAB), x[:, 1:].reshape(-1))
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    loop.result("collate_main")


if __name__ == "__main__":
    main()
