"""DataLoader with the iterator class layout of torch 2.x: __next__ lives on
_BaseDataLoaderIter, subclasses implement _next_data. The constructor takes
torch 2.x's arguments in its order, and checks them as torch does (the
options that need workers, batch_size beside batch_sampler); the dataset is a
number of batches or an IterableDataset (its nbatches). Two delays of the
fake: delay_s, each batch's wait whatever the workers; load_s, the time one
process takes to make a batch, so that N workers hand one out every
load_s / N (a model of workers loading in parallel)."""
import time

from .._tensor_ref import Tensor
from .dataset import IterableDataset


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._loader = loader
        self._num_workers = loader.num_workers
        self._i = 0

    def __iter__(self):
        return self

    def __next__(self):
        return self._next_data()

    def __len__(self):
        return len(self._loader)

    def _count_batch(self):
        """One more batch handed out; StopIteration past the last."""
        if self._i >= self._loader.nbatches:
            raise StopIteration
        self._i += 1

    def _batch(self):
        loader = self._loader
        if loader.load_s:
            time.sleep(loader.load_s / max(1, loader.num_workers))
        pinned = loader.pin_memory and _cuda_available()
        return (Tensor((loader.batch_size, 3), pinned=pinned), Tensor((loader.batch_size,), pinned=pinned))


def _cuda_available():
    from ... import cuda

    return cuda.is_available()


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def _next_data(self):
        self._count_batch()
        if self._loader.delay_s:
            time.sleep(self._loader.delay_s)  # the time a real loader spends making the batch
        return self._batch()


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """With workers: the main thread waits on the workers' queue (_get_data)."""

    def _next_data(self):
        self._count_batch()
        return self._get_data()

    def _get_data(self):
        loader = self._loader
        if loader.delay_s:
            time.sleep(loader.delay_s)  # the wait for a worker's batch
        return self._batch()


class DataLoader:
    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None, num_workers=0,
                 collate_fn=None, pin_memory=False, drop_last=False, timeout=0, worker_init_fn=None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor=None, persistent_workers=False,
                 pin_memory_device="", delay_s=0.0, load_s=0.0):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable multiprocessing.")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable it.")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        if batch_sampler is not None and (batch_size != 1 or shuffle or sampler is not None or drop_last):
            raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                             "drop_last")
        self.dataset = dataset
        self.nbatches = dataset.nbatches if isinstance(dataset, IterableDataset) else dataset
        self.batch_size = batch_size
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.pin_memory = pin_memory
        self.prefetch_factor = prefetch_factor if prefetch_factor is not None else (2 if num_workers > 0 else None)
        self.persistent_workers = persistent_workers
        self.delay_s = delay_s
        self.load_s = load_s

    def __iter__(self):
        if self.num_workers > 0:
            return _MultiProcessingDataLoaderIter(self)
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return self.nbatches
