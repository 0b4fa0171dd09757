"""torch.cuda's names in numtorch.cuda: on a machine without CUDA each behaves as torch's
CPU-only build (values, exception classes and messages); on the CuPy stand-in, the allocator,
graph, NVTX, sync-debug, storage and NCCL paths drive CuPy as they would on a GPU."""

import gc
import warnings

import numpy as np
import pytest
import torch

import numtorch
from tests.cuda import standin

# names in dir(torch.cuda) that are its own imports (typing, stdlib), or torch's build tables
_NOT_API = {"Any", "Callable", "NewType", "Optional", "TYPE_CHECKING", "cast", "classproperty",
            "importlib", "lru_cache", "os", "platform", "threading", "torch", "traceback",
            "warnings", "DEVICE_REQUIREMENT", "PYTORCH_RELEASES_CODE_CC"}


def test_every_torch_cuda_name_exists():
    want = {n for n in dir(torch.cuda) if not n.startswith("_")} - _NOT_API
    assert sorted(want - set(dir(numtorch.cuda))) == []


@pytest.mark.parametrize("sub", ["memory", "graphs", "nvtx", "profiler", "nccl", "streams"])
def test_torch_cuda_submodules_have_their_names(sub):
    import types

    t, n = getattr(torch.cuda, sub), getattr(numtorch.cuda, sub)
    want = {k for k in dir(t) if not k.startswith("_") and k[0].islower() and
            callable(getattr(t, k)) and not isinstance(getattr(t, k), types.ModuleType) and
            getattr(getattr(t, k), "__module__", "").startswith("torch")}
    want |= {k for k in dir(t) if k[:1].isupper() and k != "Tensor" and
             isinstance(getattr(t, k), type) and
             getattr(t, k).__module__.startswith("torch")}
    assert sorted(want - set(dir(n))) == []


def test_out_of_memory_error_is_one_class():
    assert numtorch.cuda.OutOfMemoryError is numtorch.OutOfMemoryError
    assert issubclass(numtorch.OutOfMemoryError, RuntimeError)
    assert numtorch.cuda.AcceleratorError is numtorch.AcceleratorError


_NO_CUDA_CALLS = [
    "get_arch_list()", "get_gencode_flags()", "is_tf32_supported()", "has_half", "has_magma",
    "memory_stats_as_nested_dict()", "host_memory_stats()", "host_memory_stats_as_nested_dict()",
    "memory_summary()", "reset_accumulated_memory_stats()", "reset_peak_memory_stats()",
    "reset_peak_host_memory_stats()", "reset_accumulated_host_memory_stats()",
    "get_per_process_memory_fraction()", "caching_allocator_alloc(10)",
    "caching_allocator_delete(0)", "caching_allocator_enable(False)",
    "caching_allocator_disabled().__enter__()", "get_allocator_backend()", "memory_snapshot()",
    "MemPool()", "use_mem_pool(None).__enter__()", "change_current_allocator(None)",
    "CUDAGraph()", "graph(None)", "graph_pool_handle()", "is_current_stream_capturing()",
    "make_graphed_callables(lib.nn.Linear(2, 2), (lib.ones(1, 2),))", "cudart()",
    "current_solver_handle()", "can_device_access_peer(0, 0)", "check_error(0)",
    "CudaError(1)", "ipc_collect()", "get_stream_from_external(0)", "set_sync_debug_mode(1)",
    "get_sync_debug_mode()", "list_gpu_processes()", "clock_rate()", "utilization()",
    "temperature()", "power_draw()", "memory_usage()", "device_memory_used()",
    "FloatStorage(2)", "BoolStorage()", "BFloat16Tensor(2)", "sparse.FloatTensor(2)",
    "nvtx.range_push('a')", "nvtx.range_pop()", "nvtx.mark('a')", "nvtx.range_start('a')",
    "profiler.start()", "profiler.stop()", "nccl.version()", "nccl.unique_id()",
    "nccl.all_reduce([lib.ones(2)])", "nccl.broadcast([lib.ones(2)])",
    "tunable.enable()", "tunable.is_enabled()", "tunable.get_results()",
    "green_contexts.SUPPORTED", "GreenContext.create()", "gds.gds_register_buffer(None)",
    "jiterator._create_jit_fn('template <typename T> T f(T x) { return x; }')(lib.ones(2))",
    "cudaStatus.SUCCESS", "cudaStatus.ERROR_NOT_READY", "default_generators",
]


def _outcome(lib, call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            r = eval("lib.cuda." + call, {"lib": lib})
        except BaseException as e:  # noqa: BLE001  (class and message are compared)
            return "raise", type(e).__name__, str(e)
    if isinstance(r, (dict, list, tuple, bool, int, str)):
        return "value", r
    return "value", type(r).__name__


@pytest.mark.parametrize("call", _NO_CUDA_CALLS)
def test_without_cuda_as_torch(call):
    assert numtorch.backend.cupy_or_none() is None
    assert _outcome(numtorch, call) == _outcome(torch, call)


@pytest.fixture
def cuda():
    # tensors earlier tests left to the garbage collector would otherwise be freed in the
    # middle of a test that counts the bytes in use
    gc.collect()
    with standin.active():
        standin.reset_stats()
        yield numtorch.cuda


def test_cupy_out_of_memory_becomes_torchs(cuda):
    cuda.set_per_process_memory_fraction(1e-9)
    try:
        with pytest.raises(numtorch.OutOfMemoryError) as info:
            numtorch.ones(10000, device="cuda")
    finally:
        cuda.set_per_process_memory_fraction(1.0)
    msg = str(info.value)
    assert msg.startswith("CUDA out of memory. Tried to allocate 39.06 KiB. GPU 0 has a total "
                          "capacity of ")
    assert isinstance(info.value, torch.OutOfMemoryError.__mro__[1])  # a RuntimeError
    assert type(info.value.__cause__).__name__ == "OutOfMemoryError"  # CuPy's, kept as cause
    assert cuda.get_per_process_memory_fraction() == 1.0


def test_memory_statistics_tables(cuda):
    cuda.empty_cache()
    cuda.reset_accumulated_memory_stats()
    x = numtorch.ones(1000, device="cuda")
    stats = cuda.memory_stats()
    nested = cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["all"]["current"] == stats["allocated_bytes.all.current"]
    assert stats["allocated_bytes.all.allocated"] >= 4000
    del x
    stats = cuda.memory_stats()
    assert stats["allocated_bytes.all.freed"] >= 4000
    text = cuda.memory_summary()
    assert "Allocated memory" in text and "Tot Freed" in text and "device ID 0" in text
    assert len(cuda.memory_summary(abbreviated=True)) < len(text)


def test_raw_allocations_and_caching_switch(cuda):
    before = cuda.memory_allocated()
    p = cuda.caching_allocator_alloc(1 << 16)
    assert cuda.memory_allocated() >= before + (1 << 16)
    cuda.caching_allocator_delete(p)
    assert cuda.memory_allocated() == before
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        cuda.caching_allocator_delete(p)
    y = numtorch.ones(1 << 14, device="cuda")
    del y
    assert cuda.memory_reserved() > cuda.memory_allocated()  # the pool keeps the block
    with cuda.caching_allocator_disabled():
        numtorch.ones(1, device="cuda")
        assert cuda.memory_reserved() <= cuda.memory_allocated() + 4
    assert cuda.get_allocator_backend() == "native"


def test_mem_pool_takes_the_allocations_of_its_block(cuda):
    pool = cuda.MemPool()
    before = cuda.memory_allocated()
    with cuda.use_mem_pool(pool):
        assert pool.use_count() == 2
        y = numtorch.ones(1000, device="cuda")
    assert cuda.memory_allocated() == before and pool._pool.used_bytes() == 4000
    assert pool.use_count() == 1 and isinstance(pool.id, tuple)
    numtorch.ones(10, device="cuda")
    assert pool._pool.used_bytes() == 4000
    del y


def test_graph_capture_and_replay_drive_cupy(cuda):
    x = numtorch.ones(4, device="cuda")
    g = cuda.CUDAGraph()
    with pytest.raises(RuntimeError, match="without a preceding successful capture"):
        g.replay()
    with pytest.raises(RuntimeError, match="must be captured on a non-default stream"):
        g.capture_begin()
    before = cuda.memory_allocated()
    with cuda.graph(g):
        assert cuda.is_current_stream_capturing()
        y = x * 2  # noqa: F841  (allocated from the graph's own pool)
        assert cuda.memory_allocated() == before
    assert not cuda.is_current_stream_capturing()
    g.replay()
    assert standin.STATS["graph_launches"] == [0] and standin.STATS["captures"] == 1
    g2 = cuda.CUDAGraph()
    with cuda.graph(g2, pool=g.pool()):
        x + 1
    assert g2.pool() == g.pool()


def test_nvtx_profiler_and_sync_debug(cuda):
    with cuda.nvtx.range("step {}", 3):
        cuda.nvtx.mark("m")
    rid = cuda.nvtx.range_start("r")
    cuda.nvtx.range_end(rid)
    assert [e[0] for e in standin.STATS["nvtx"]] == ["RangePush", "Mark", "RangePop",
                                                      "RangeStart", "RangeEnd"]
    assert standin.STATS["nvtx"][0] == ("RangePush", "step 3")
    with cuda.profiler.profile():
        pass
    assert standin.STATS["profiler"] == [("start",), ("stop",)]
    x = numtorch.ones(2, device="cuda")
    cuda.set_sync_debug_mode("warn")
    assert cuda.get_sync_debug_mode() == 1
    for sync in (x.cpu, x[0].item, x.tolist):
        with pytest.warns(UserWarning, match="called a synchronizing CUDA operation"):
            sync()
    cuda.set_sync_debug_mode("error")
    with pytest.raises(RuntimeError, match="called a synchronizing CUDA operation"):
        x.cpu()
    cuda.set_sync_debug_mode(0)
    x.cpu()
    with pytest.raises(RuntimeError, match="invalid value of debug_mode"):
        cuda.set_sync_debug_mode("loud")


def test_runtime_queries(cuda):
    assert cuda.get_arch_list() == ["sm_90"]
    assert cuda.get_gencode_flags() == "-gencode compute=compute_90,code=sm_90"
    assert cuda.is_tf32_supported() and cuda.current_solver_handle() == 2
    assert cuda.can_device_access_peer(0, 0) is False
    with pytest.raises(AssertionError, match="Invalid peer device id"):
        cuda.can_device_access_peer(0, 3)
    cuda.check_error(0)
    with pytest.raises(cuda.CudaError, match=r"^out of memory \(2\)$"):
        cuda.check_error(2)
    s = cuda.get_stream_from_external(1234)
    assert s.cuda_stream == 1234


def test_host_memory_stats_follow_pinned_tensors(cuda):
    cuda.reset_accumulated_host_memory_stats()
    base = cuda.host_memory_stats()["allocated_bytes.current"]
    p = numtorch.ones(100).pin_memory()
    h = cuda.host_memory_stats()
    assert h["allocated_bytes.current"] == base + 400 and h["allocations.allocated"] == 1
    del p
    h = cuda.host_memory_stats_as_nested_dict()
    assert h["allocated_bytes"]["current"] == base and h["allocated_bytes"]["peak"] >= 400
    cuda.reset_peak_host_memory_stats()
    assert cuda.host_memory_stats()["allocated_bytes.peak"] == base


def test_cuda_storages_and_legacy_types(cuda):
    s = cuda.FloatStorage([1.0, 2.0])
    assert s.is_cuda and isinstance(s, numtorch.FloatStorage) and s.size() == 2
    assert numtorch.backend.is_device_array(s._array)
    assert not isinstance(numtorch.ones(2, device="cuda"), cuda.sparse.FloatTensor)
    with pytest.raises(TypeError, match="sparse tensors are CPU-only"):
        cuda.sparse.FloatTensor(2)


@pytest.mark.parametrize("op", [0, 2, 3])
def test_nccl_collectives_match_torch_reductions(cuda, op):
    vals = [np.array([1.0, -2.0, 3.0, 0.5], np.float32), np.array([4.0, 5.0, -6.0, 2.0],
                                                                     np.float32)]
    reduce = {0: torch.stack, 2: torch.stack, 3: torch.stack}[op]
    stacked = reduce([torch.from_numpy(v) for v in vals])
    want = {0: stacked.sum(0), 2: stacked.amax(0), 3: stacked.amin(0)}[op].numpy()
    xs = [numtorch.tensor(v, device="cuda") for v in vals]
    assert cuda.nccl.is_available(xs[:1]) and not cuda.nccl.is_available(xs)  # one per GPU
    cuda.nccl.all_reduce(xs, op=op)
    for x in xs:
        np.testing.assert_array_equal(x.cpu().numpy(), want)
    xs = [numtorch.tensor(v, device="cuda") for v in vals]
    outs = [numtorch.empty(2, device="cuda") for _ in vals]
    cuda.nccl.reduce_scatter(xs, outs, op=op)
    np.testing.assert_array_equal(np.concatenate([o.cpu().numpy() for o in outs]), want)
    gathered = [numtorch.empty(8, device="cuda")]
    cuda.nccl.all_gather(xs, gathered)
    np.testing.assert_array_equal(gathered[0].cpu().numpy(), np.concatenate(vals))
    cuda.nccl.broadcast(xs, root=1)
    np.testing.assert_array_equal(xs[0].cpu().numpy(), vals[1])


def test_jiterator_parses_the_template(cuda):
    fn = cuda.jiterator._create_jit_fn(
        "template <typename T> T my_op(T x, T y, T alpha) { return -x + alpha * y; }",
        alpha=1.0)
    assert fn.kernel_name == "my_op" and fn.kwargs_dict == {"alpha": 1.0}
    with pytest.raises(RuntimeError, match="must define one function template"):
        cuda.jiterator._create_jit_fn("not a template")


def test_freed_after_a_reset_counts_memory_live_at_the_reset(cuda):
    # torch counts every free after reset_accumulated_memory_stats, also of older tensors
    x = numtorch.ones(1000, device="cuda")
    cuda.reset_accumulated_memory_stats()
    y = numtorch.ones(250, device="cuda")
    del x
    stats = cuda.memory_stats()
    assert 1000 <= stats["allocated_bytes.all.allocated"] < 4000
    assert stats["allocated_bytes.all.freed"] >= 4000
    del y
