"""input_pipeline: samples are read from disk, and the disk is the bottleneck.

At start a large file is written to --data-dir (time-limited, excluded from the
recorded steps).  Every sample is a random 1-4 MiB chunk read with os.pread;
after each read the file's pages are dropped from the page cache
(POSIX_FADV_DONTNEED) so the cache cannot hide the disk.  Two workers, a small
conv net: the GPU waits on reads.  The file is deleted at exit.
"""

import atexit
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import torch  # noqa: E402

import common  # noqa: E402

MiB = 1 << 20
ALIGN = 4096


def write_data_file(path, target_bytes, max_seconds):
    """Write up to target_bytes of incompressible data in at most max_seconds."""
    chunk = bytearray(os.urandom(64 * MiB))
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    written = 0
    t0 = time.monotonic()
    try:
        while written < target_bytes and time.monotonic() - t0 < max_seconds:
            chunk[0:8] = written.to_bytes(8, "little")  # every chunk differs
            n = os.write(fd, chunk)
            if n <= 0:
                break
            written += n
        os.fsync(fd)
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    finally:
        os.close(fd)
    return written, time.monotonic() - t0


class DiskSamples(torch.utils.data.Dataset):
    def __init__(self, path, file_bytes, min_mib, max_mib, image_size, seed, drop_cache):
        self.path = path
        self.file_bytes = file_bytes
        self.min_bytes = int(min_mib * MiB)
        self.max_bytes = int(max_mib * MiB)
        self.image_size = image_size
        self.seed = seed
        self.drop_cache = drop_cache
        self.fd = None
        self.fd_pid = None

    def __len__(self):
        return 10_000_000

    def _fd(self):
        if self.fd is None or self.fd_pid != os.getpid():
            self.fd = os.open(self.path, os.O_RDONLY)
            self.fd_pid = os.getpid()
            try:
                os.posix_fadvise(self.fd, 0, 0, os.POSIX_FADV_RANDOM)  # no read-ahead
            except OSError:
                pass
        return self.fd

    def __getitem__(self, i):
        rng = random.Random(self.seed * 1000003 + i)
        n = rng.randint(self.min_bytes, self.max_bytes)
        n = min(n, self.file_bytes)
        top = max(0, self.file_bytes - n)
        off = (rng.randint(0, top) // ALIGN) * ALIGN
        fd = self._fd()
        data = os.pread(fd, n, off)
        if self.drop_cache:
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        need = 3 * self.image_size * self.image_size
        raw = bytearray(data[:need])
        if len(raw) < need:
            raw.extend(bytes(need - len(raw)))
        img = torch.frombuffer(raw, dtype=torch.uint8).view(3, self.image_size, self.image_size)
        x = img.float().div_(255.0).sub_(0.5).div_(0.25)
        return x, data[-1] % 100 if data else 0


def main():
    p = common.make_parser(__doc__.splitlines()[0], warmup_steps=3)
    p.add_argument("--data-dir", default="/tmp/gpuwhy_scn")
    p.add_argument("--file-gib", type=float, default=4.0)
    p.add_argument("--write-seconds", type=float, default=15.0,
                   help="stop writing the data file after this long (default %(default)s)")
    common.add_numeric_options(p, min_mib=1.0, max_mib=4.0, batch_size=64, num_workers=2, image_size=128)
    p.add_argument("--keep-cache", action="store_true", help="do not drop the page cache after reads")
    args = common.parse_args(p)
    dev = common.setup_cuda(args.seed)
    if args.max_mib < args.min_mib or args.min_mib <= 0:
        p.error("need 0 < --min-mib <= --max-mib")

    os.makedirs(args.data_dir, exist_ok=True)
    path = os.path.join(args.data_dir, "samples_%d.bin" % os.getpid())
    state = {"loader": None}

    def cleanup():
        if state["loader"] is not None:
            state["loader"].close()
        try:
            os.unlink(path)
            common.log("removed %s" % path)
        except FileNotFoundError:
            pass

    atexit.register(cleanup)  # setup errors; run() calls cleanup itself
    try:
        common.log("writing data file %s (up to %.1f GiB, at most %.0f s)" % (path, args.file_gib, args.write_seconds))
        size, secs = write_data_file(path, int(args.file_gib * 1024 * MiB), args.write_seconds)
        common.log("wrote %.2f GiB in %.1f s (%.0f MiB/s)" % (size / 1024 / MiB, secs, size / MiB / max(secs, 1e-9)))
        if size < int(args.max_mib * MiB) * 4:
            raise RuntimeError("data file too small (%d bytes): is %s writable and not full?" % (size, args.data_dir))
    except BaseException:
        cleanup()
        raise

    ds = DiskSamples(path, size, args.min_mib, args.max_mib, args.image_size, args.seed, not args.keep_cache)
    batches = common.infinite_loader(ds, args.batch_size, args.num_workers)
    state["loader"] = batches

    c = 64
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, c, 3, stride=2, padding=1), torch.nn.BatchNorm2d(c), torch.nn.ReLU(),
        torch.nn.Conv2d(c, 2 * c, 3, stride=2, padding=1), torch.nn.BatchNorm2d(2 * c), torch.nn.ReLU(),
        torch.nn.Conv2d(2 * c, 4 * c, 3, stride=2, padding=1), torch.nn.BatchNorm2d(4 * c), torch.nn.ReLU(),
        torch.nn.AdaptiveAvgPool2d(1), torch.nn.Flatten(), torch.nn.Linear(4 * c, 100),
    ).to(dev)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    step = common.loader_train_step(model, opt, batches, dev)

    params = common.vars_of(args)
    params.update(file_bytes=size, file_write_s=round(secs, 2), mean_read_mib=(args.min_mib + args.max_mib) / 2)
    gt = common.GroundTruth(
        args, "input_slow_read", ["input_pipeline"],
        "Each sample is a random %.0f-%.0f MiB chunk of a %.1f GiB file read with os.pread by %d DataLoader "
        "workers; after every read the file is dropped from the page cache (POSIX_FADV_DONTNEED, read-ahead "
        "off) so each read goes to the disk. The model is a small conv net on %dx%d crops of the bytes, so a "
        "batch of %d (about %.0f MiB of reads) takes far longer to read than to train on: disk utilisation "
        "is high, the GPU idles waiting for input." % (
            args.min_mib, args.max_mib, size / 1024 / MiB, args.num_workers, args.image_size,
            args.image_size, args.batch_size, args.batch_size * (args.min_mib + args.max_mib) / 2),
        params, args.batch_size, args.batch_size)
    common.run(gt, step, on_exit=cleanup)


if __name__ == "__main__":
    main()
