"""DataLoader with the iterator class layout of torch 2.x: __next__ lives on
_BaseDataLoaderIter, subclasses implement _next_data."""
import time

from .._tensor_ref import Tensor


class _BaseDataLoaderIter:
    def __init__(self, loader):
        self._loader = loader
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


class DataLoader:
    def __init__(self, nbatches, batch_size=8, delay_s=0.0):
        self.nbatches = nbatches
        self.batch_size = batch_size
        self.delay_s = delay_s

    def __iter__(self):
        return _SingleProcessDataLoaderIter(self)

    def __len__(self):
        return self.nbatches
