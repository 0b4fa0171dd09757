"""``torch.cuda`` graphs over CuPy's stream capture.

A capture records the kernels numtorch's ops queue on a (non-default) stream into a CUDA graph
(``cupy.cuda.Stream.begin_capture``/``end_capture``); ``replay`` launches the whole graph again
on the same memory. As in torch, what the captured work allocates comes from a memory pool of
the graph's own (``graph_pool_handle`` lets several graphs share one), so the memory a graph
replays into is never handed to other tensors. Without CUDA every name raises torch's error.
"""

import gc

from .. import backend

__all__ = ["CUDAGraph", "graph", "graph_pool_handle", "is_current_stream_capturing",
           "make_graphed_callables"]

_POOLS = {}  # pool handle (a pair of ints, as torch's) -> the CuPy memory pool behind it
_NEXT = [0]


def _dummy(name):
    return RuntimeError(f"Tried to instantiate dummy base class {name}")


def _memory():
    from ..backend import _cupy_memory

    return _cupy_memory


def graph_pool_handle():
    """A handle to a new graph memory pool, to share between captures (``pool=``)."""
    if backend.cupy_or_none() is None:
        raise _dummy("_graph_pool_handle")
    _NEXT[0] += 1
    handle = (0, _NEXT[0])
    _POOLS[handle] = _memory().new_private_pool()
    return handle


def is_current_stream_capturing():
    """True while a graph capture is under way on the current stream."""
    if backend.cupy_or_none() is None:
        raise _dummy("_cuda_isCurrentStreamCapturing")
    return _memory().is_capturing()


class CUDAGraph:
    """A captured CUDA graph: :meth:`capture_begin` ... :meth:`capture_end` record the GPU work
    queued on the current stream in between, :meth:`replay` runs it again."""

    def __new__(cls, keep_graph=False):
        if backend.cupy_or_none() is None:
            raise _dummy("CUDAGraph")
        self = object.__new__(cls)
        self._graph = self._stream = self._pool = None
        return self

    def __init__(self, keep_graph=False):
        pass

    def capture_begin(self, pool=None, capture_error_mode="global", check_input_liveness=False):
        """Start recording the work queued on the current stream (not the default stream)."""
        from .streams import current_stream

        stream = current_stream()._stream
        if stream.ptr in (0, 1):
            raise RuntimeError("CUDA graphs must be captured on a non-default stream. (However, "
                               "after capture, it's ok to replay them on the default stream.)")
        if pool is None:
            pool = graph_pool_handle()
        elif pool not in _POOLS:
            raise RuntimeError(f"graph pool {pool} was not made by graph_pool_handle()")
        self._pool, self._stream = pool, stream
        _memory().begin_capture(stream, _POOLS[pool])

    def capture_end(self):
        """Stop recording; the graph is ready to :meth:`replay`."""
        if self._stream is None:
            raise RuntimeError("capture_end() without a preceding capture_begin()")
        self._graph = _memory().end_capture(self._stream)

    def instantiate(self):
        """Nothing to do: the graph is instantiated when its capture ends."""
        if self._graph is None:
            raise RuntimeError("Called CUDAGraph::instantiate without a preceding successful "
                               "capture.")

    def replay(self):
        """Run the captured work again, on the current stream."""
        if self._graph is None:
            raise RuntimeError("Called CUDAGraph::replay without a preceding successful "
                               "capture.")
        from .streams import current_stream

        self._graph.launch(current_stream()._stream)

    def reset(self):
        """Drop the captured graph (its pool stays while a handle to it is kept)."""
        self._graph = None

    def pool(self):
        """The handle of the memory pool the capture allocated from."""
        if self._pool is None:
            raise RuntimeError("Called CUDAGraph::pool without a preceding successful capture.")
        return self._pool


class graph:
    """``with torch.cuda.graph(g):`` captures the block's GPU work into ``g`` (on a side stream
    unless ``stream`` is given), after synchronising and emptying the cache as torch does.

    Args:
        cuda_graph (CUDAGraph): the graph to capture into.
        pool (optional): a :func:`graph_pool_handle` (or another graph's ``pool()``) to share.
        stream (Stream, optional): the stream to capture on.
    """

    default_capture_stream = None

    def __init__(self, cuda_graph, pool=None, stream=None, capture_error_mode="global",
                 enable_annotations=False, check_input_liveness=False):
        from .streams import Stream, StreamContext

        if graph.default_capture_stream is None:
            graph.default_capture_stream = Stream()
        self.pool = pool
        self.capture_stream = stream if stream is not None else graph.default_capture_stream
        self.stream_ctx = StreamContext(self.capture_stream)
        self.cuda_graph = cuda_graph
        self.capture_error_mode = capture_error_mode

    def __enter__(self):
        from . import synchronize
        from .memory import empty_cache

        synchronize()
        gc.collect()
        empty_cache()
        self.stream_ctx.__enter__()
        self.cuda_graph.capture_begin(self.pool, capture_error_mode=self.capture_error_mode)

    def __exit__(self, *exc):
        try:
            self.cuda_graph.capture_end()
        finally:
            self.stream_ctx.__exit__(*exc)
        return False


def make_graphed_callables(callables, sample_args, num_warmup_iters=3,
                           allow_unused_input=False, pool=None):
    """Graph-captured versions of ``callables`` (modules or functions): see
    ``numtorch.cuda._graphed``."""
    from ._graphed import make_graphed_callables as make

    return make(callables, sample_args, num_warmup_iters, allow_unused_input, pool)
