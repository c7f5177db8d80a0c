"""DataLoader with the iterator class layout of torch 2.x: __next__ lives on
_BaseDataLoaderIter, subclasses implement _next_data."""
import time

from .._tensor_ref import Tensor


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


class _SingleProcessDataLoaderIter(_BaseDataLoaderIter):
    def _next_data(self):
        loader = self._loader
        if self._i >= loader.nbatches:
            raise StopIteration
        self._i += 1
        if loader.delay_s:
            time.sleep(loader.delay_s)  # the time a real loader spends making the batch
        return (Tensor((loader.batch_size, 3)), Tensor((loader.batch_size,)))


class _MultiProcessingDataLoaderIter(_BaseDataLoaderIter):
    """With workers: the main thread waits on the workers' queue (_get_data)."""

    def _next_data(self):
        loader = self._loader
        if self._i >= loader.nbatches:
            raise StopIteration
        self._i += 1
        return self._get_data()

    def _get_data(self):
        loader = self._loader
        if loader.delay_s:
            time.sleep(loader.delay_s)  # the wait for a worker's batch
        return (Tensor((loader.batch_size, 3)), Tensor((loader.batch_size,)))


class DataLoader:
    def __init__(self, nbatches, batch_size=8, delay_s=0.0, num_workers=0):
        self.nbatches = nbatches
        self.batch_size = batch_size
        self.delay_s = delay_s
        self.num_workers = num_workers

    def __iter__(self):
        if self.num_workers > 0:
            return _MultiProcessingDataLoaderIter(self)
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return self.nbatches
