"""LABEL: input_pipeline

A producer thread (threading.Thread, no DataLoader) decodes each batch in pure Python: for
every one of 256 records it parses a JSON line of 512 integers, applies a per-token hash
bucketing in a list comprehension, and pads it; the batch goes through a queue.Queue(maxsize=2)
to the training loop, which copies it to the GPU and trains a 4-layer MLP (embedding-bag input,
width 1024). Decoding a batch holds the interpreter for longer than the GPU step, so the
training thread waits on the queue: the GPU waits for input.
usage: python3 gil_thread_decode.py SECONDS
"""

import json
import os
import queue
import random
import sys
import threading

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 256
TOKENS = 512
VOCAB = 50000
WIDTH = 1024
CLASSES = 16


def make_lines(n):
    rnd = random.Random(7)
    return [json.dumps({"ids": [rnd.randrange(10**6) for _ in range(TOKENS)], "y": rnd.randrange(CLASSES)})
            for _ in range(n)]


def decode_batch(lines, start):
    ids, ys = [], []
    for k in range(BATCH):
        rec = json.loads(lines[(start + k) % len(lines)])
        toks = [(t * 2654435761) % VOCAB for t in rec["ids"]]
        toks = (toks + [0] * TOKENS)[:TOKENS]
        ids.append(toks)
        ys.append(rec["y"])
    return torch.tensor(ids, dtype=torch.long), torch.tensor(ys, dtype=torch.long)


def producer(lines, q, stop):
    start = 0
    while not stop.is_set():
        batch = decode_batch(lines, start)
        start += BATCH
        while not stop.is_set():
            try:
                q.put(batch, timeout=0.1)
                break
            except queue.Full:
                pass


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    dev = _oos.device()
    emb = torch.nn.EmbeddingBag(VOCAB, WIDTH, mode="mean").to(dev)
    head = _oos.mlp(WIDTH, WIDTH, 3, CLASSES).to(dev)
    opt = torch.optim.AdamW(list(emb.parameters()) + list(head.parameters()), lr=1e-3)
    lines = make_lines(4096)
    q = queue.Queue(maxsize=2)
    stop = threading.Event()
    th = threading.Thread(target=producer, args=(lines, q, stop), name="decode", daemon=True)
    th.start()
    _oos.log("producer thread decoding %d x %d tokens a batch" % (BATCH, TOKENS))

    loop = _oos.Loop(seconds)
    while loop.running():
        ids, y = q.get()
        ids, y = ids.to(dev, non_blocking=True), y.to(dev, non_blocking=True)
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(head(emb(ids)), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
    loop.finish()
    stop.set()
    loop.result("gil_thread_decode")


if __name__ == "__main__":
    main()
