"""LABEL: input_pipeline

A DataLoader with num_workers=2 and pin_memory=True whose Dataset.__getitem__ makes a random text
of about 20,000 characters and tokenizes it in pure Python (str.split, then a greedy WordPiece
longest-match over dict lookups), keeping the first 513 ids as a LongTensor; the model is a
token embedding + 4-layer transformer encoder (d_model 512, bf16 autocast) on batches of 32 x 512.
Two workers take far longer per batch than the GPU step: the GPU waits for input.
usage: python3 tokenize_workers.py SECONDS
"""

import os
import random
import string
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 32
SEQ = 512
TEXT_CHARS = 20000
D_MODEL = 512
LAYERS = 4
WORKERS = 2
MAX_PIECE = 5


def build_vocab(seed=11):
    """WordPiece-like vocabulary: letters, '##'-continuations and random 2-5 letter pieces."""
    rng = random.Random(seed)
    pieces = set(string.ascii_lowercase)
    while len(pieces) < 20000:
        pieces.add("".join(rng.choices(string.ascii_lowercase, k=rng.randint(2, MAX_PIECE))))
    vocab = {"[PAD]": 0, "[UNK]": 1}
    for p in sorted(pieces):
        vocab[p] = len(vocab)
        vocab["##" + p] = len(vocab)
    words = ["".join(rng.choices(string.ascii_lowercase, k=rng.randint(3, 11))) for _ in range(8000)]
    return vocab, words


def wordpiece(text, vocab):
    """Pure-Python tokenizer: split on whitespace, then greedy longest-match-first per word."""
    ids = []
    unk = vocab["[UNK]"]
    for word in text.lower().split():
        start = 0
        n = len(word)
        while start < n:
            end = min(n, start + MAX_PIECE)
            tid = None
            while end > start:
                piece = word[start:end] if start == 0 else "##" + word[start:end]
                tid = vocab.get(piece)
                if tid is not None:
                    break
                end -= 1
            if tid is None:
                ids.append(unk)
                break
            ids.append(tid)
            start = end
    return ids


class TextDataset(torch.utils.data.Dataset):
    def __init__(self, length=10 ** 7, seed=1234):
        self.vocab, self.words = build_vocab()
        self.length = length
        self.seed = seed

    def __len__(self):
        return self.length

    def __getitem__(self, idx):
        rng = random.Random(self.seed * 1000003 + idx)
        parts = []
        chars = 0
        while chars < TEXT_CHARS:
            w = rng.choice(self.words)
            parts.append(w)
            chars += len(w) + 1
        text = " ".join(parts)
        ids = wordpiece(text, self.vocab)[:SEQ + 1]
        ids += [0] * (SEQ + 1 - len(ids))
        return torch.tensor(ids, dtype=torch.long)


class LM(nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.tok = nn.Embedding(vocab, D_MODEL)
        self.pos = nn.Embedding(SEQ, D_MODEL)
        layer = nn.TransformerEncoderLayer(D_MODEL, 8, dim_feedforward=4 * D_MODEL, dropout=0.0,
                                           activation="gelu", batch_first=True, norm_first=True)
        self.body = nn.TransformerEncoder(layer, LAYERS, enable_nested_tensor=False)
        self.norm = nn.LayerNorm(D_MODEL)
        self.head = nn.Linear(D_MODEL, vocab)

    def forward(self, tokens):
        pos = torch.arange(tokens.shape[1], device=tokens.device)
        return self.head(self.norm(self.body(self.tok(tokens) + self.pos(pos))))


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    ds = TextDataset()
    vocab_size = len(ds.vocab)
    model = LM(vocab_size).to(dev)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    loader = torch.utils.data.DataLoader(ds, batch_size=BATCH, shuffle=False, num_workers=WORKERS,
                                         pin_memory=True)
    _oos.log("params %.1fM, vocab %d, batch %d x %d, %d workers" % (
        _oos.n_params(model) / 1e6, vocab_size, BATCH, SEQ, WORKERS))

    loop = _oos.Loop(seconds)
    it = iter(loader)
    while loop.running():
        seq = next(it).to(dev, non_blocking=True)
        x, y = seq[:, :-1], seq[:, 1:]
        opt.zero_grad(set_to_none=True)
        with torch.autocast("cuda", dtype=torch.bfloat16):
            logits = model(x)
        loss = F.cross_entropy(logits.float().reshape(-1, vocab_size), y.reshape(-1))
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    del it
    loop.result("tokenize_workers", tokens_per_s=loop.samples * SEQ / loop.elapsed)


if __name__ == "__main__":
    main()
