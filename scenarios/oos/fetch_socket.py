"""LABEL: input_pipeline

No DataLoader: each step fetches its batch inline from a store in another process over a local
TCP socket; the store answers each request after 25 ms (its network round trip and server time)
with raw uint8 bytes, which the loop decodes into a float32 CPU tensor with numpy and copies to
the GPU. The model is a ~35M-parameter fp32 MLP (batch 1024, about 5 ms of GPU work per step), so
the GPU waits for the store most of the time. Unlike fetch_store.py, the wait is a receive on a
socket, as a real remote store's is, not a sleep in the training thread.
usage: python3 fetch_socket.py SECONDS
"""

import multiprocessing as mp
import os
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import numpy as np  # noqa: E402
import torch  # noqa: E402
import torch.nn.functional as F  # noqa: E402

import _oos  # noqa: E402

BATCH = 1024
IN_DIM = 1024
WIDTH = 3072
CLASSES = 1000
LATENCY_S = 0.025


def serve(sock, objects=16, seed=7):
    """The store: one connection; each 8-byte key gets the encoded batch and labels after LATENCY_S."""
    rng = np.random.default_rng(seed)
    blobs = [rng.integers(0, 256, BATCH * IN_DIM, dtype=np.uint8).tobytes() for _ in range(objects)]
    labels = [rng.integers(0, CLASSES, BATCH, dtype=np.int64).tobytes() for _ in range(objects)]
    conn, _ = sock.accept()
    with conn:
        while True:
            req = conn.recv(8, socket.MSG_WAITALL)
            if len(req) < 8:
                return
            k = struct.unpack("<q", req)[0] % objects
            time.sleep(LATENCY_S)
            conn.sendall(blobs[k] + labels[k])


def recv_exact(conn, n):
    buf = bytearray(n)
    view = memoryview(buf)
    got = 0
    while got < n:
        m = conn.recv_into(view[got:], n - got)
        if m == 0:
            raise EOFError("store closed")
        got += m
    return bytes(buf)


def decode(blob, labels):
    x = np.frombuffer(blob, dtype=np.uint8).reshape(BATCH, IN_DIM).astype(np.float32)
    x *= 1.0 / 255.0
    x -= 0.5
    y = np.frombuffer(labels, dtype=np.int64)
    return torch.from_numpy(x), torch.from_numpy(y.copy())


def main():
    seconds, _ = _oos.parse_args()
    _oos.seed_all()
    lsock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    lsock.bind(("127.0.0.1", 0))
    lsock.listen(1)
    store = mp.get_context("fork").Process(target=serve, args=(lsock,), daemon=True)
    store.start()
    conn = socket.create_connection(lsock.getsockname())
    dev = _oos.device()
    model = _oos.mlp(IN_DIM, WIDTH, 3, CLASSES).to(dev)
    opt = torch.optim.Adam(model.parameters(), lr=1e-4)
    _oos.log("params %.1fM, batch %d, store latency %.0f ms over TCP" % (_oos.n_params(model) / 1e6, BATCH,
                                                                        LATENCY_S * 1e3))
    nbytes = BATCH * IN_DIM + BATCH * 8
    loop = _oos.Loop(seconds)
    i = 0
    while loop.running():
        conn.sendall(struct.pack("<q", i))
        data = recv_exact(conn, nbytes)
        x, y = decode(data[:BATCH * IN_DIM], data[BATCH * IN_DIM:])
        x, y = x.cuda(), y.cuda()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(model(x), y)
        loss.backward()
        opt.step()
        loop.step_done(BATCH)
        i += 1
    loop.finish()
    conn.close()
    loop.result("fetch_socket")


if __name__ == "__main__":
    main()
