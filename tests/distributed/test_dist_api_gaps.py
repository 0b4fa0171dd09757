"""torch.distributed names numtorch lacked: debug levels, supports_complex, option records,
BackendConfig, subgroups by enumeration and split_group (2 MPI ranks), breakpoint."""

import subprocess
import sys

import pytest
import torch
import torch.distributed as tdist

import numtorch.distributed as dist

from . import _launch


def test_debug_level_enum_and_env(monkeypatch):
    assert list(dist.DebugLevel.__members__) == list(tdist.DebugLevel.__members__)
    for lib in (dist, tdist):
        saved = lib.get_debug_level()
        try:
            monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "detail")
            lib.set_debug_level_from_env()
            assert str(lib.get_debug_level()) == "DebugLevel.DETAIL"
            monkeypatch.delenv("TORCH_DISTRIBUTED_DEBUG")
            lib.set_debug_level_from_env()
            assert str(lib.get_debug_level()) == "DebugLevel.OFF"
            lib.set_debug_level(lib.DebugLevel.INFO)
            assert str(lib.get_debug_level()) == "DebugLevel.INFO"
            monkeypatch.setenv("TORCH_DISTRIBUTED_DEBUG", "bogus")
            with pytest.raises(ValueError, match="must be OFF, INFO, or DETAIL"):
                lib.set_debug_level_from_env()
            with pytest.raises(TypeError, match="incompatible function arguments"):
                lib.set_debug_level("INFO")
        finally:
            lib.set_debug_level(saved)


def test_supports_complex_per_op():
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        got = dist.supports_complex(getattr(dist.ReduceOp, name))
        assert got == tdist.supports_complex(getattr(tdist.ReduceOp, name)), name
    with pytest.raises(TypeError):
        dist.supports_complex("sum")


def test_option_records_match_torch():
    names = sorted(n for n in dir(tdist) if n.endswith("Options"))
    assert names == sorted(n for n in dir(dist) if n.endswith("Options"))
    for n in names:
        ours, theirs = getattr(dist, n)(), getattr(tdist, n)()
        fields = [a for a in dir(theirs) if not a.startswith("_")]
        assert fields == [a for a in dir(ours) if not a.startswith("_")], n
        for a in fields:
            t, o = getattr(theirs, a), getattr(ours, a)
            if isinstance(t, tdist.ReduceOp):
                assert o == dist.ReduceOp.SUM
            else:
                assert o == t, (n, a)
        with pytest.raises(TypeError, match="incompatible constructor arguments"):
            getattr(dist, n)(timeout=None)


@pytest.mark.parametrize("spec", ["gloo", "nccl", "mpi", "ucc", "undefined",
                                  "cpu:gloo,cuda:nccl", "cpu:gloo", "GLOO"])
def test_backend_config(spec):
    ours, theirs = dist.BackendConfig(spec), tdist.BackendConfig(spec)
    assert str(ours) == str(theirs)
    assert ours.get_device_backend_map() == theirs.get_device_backend_map()


def test_backend_config_errors():
    with pytest.raises(ValueError, match="Duplicate device type cpu"):
        dist.BackendConfig("cpu:gloo,cpu:mpi")
    with pytest.warns(UserWarning, match="Device capability of foo unknown"):
        assert str(dist.BackendConfig("foo")) == "cpu:foo,cuda:foo,xpu:foo"


def test_plain_names_and_submodules():
    assert issubclass(dist.QueueEmptyError, dist.DistStoreError)
    assert dist.constants.default_pg_timeout == tdist.constants.default_pg_timeout
    assert dist.constants.default_pg_nccl_timeout == tdist.constants.default_pg_nccl_timeout
    assert list(dist.logging_handlers._log_handlers) == ["default"]
    for fn in ("new_subgroups_by_enumeration", "split_group", "get_backend_config"):
        with pytest.raises(ValueError, match="not been initialized"):
            getattr(dist, fn)(*(([[0]],) if fn == "new_subgroups_by_enumeration" else ()),
                              **({"split_ranks": [[0]]} if fn == "split_group" else {}))
    with pytest.raises(ValueError, match="cannot be empty"):
        dist.new_subgroups_by_enumeration([])
    with pytest.raises(ValueError, match="split_ranks cannot be None or empty"):
        dist.split_group(split_ranks=None)


_ONE_RANK = """
import sys, bdb, numtorch.distributed as dist
dist.init_process_group("gloo", store=dist.HashStore(), rank=0, world_size=1{dev})
{body}
"""


def _one_rank(body, dev=""):
    code = _ONE_RANK.format(dev=dev, body=body)
    return subprocess.run([sys.executable, "-c", code], check=False, stdin=subprocess.DEVNULL,
                          capture_output=True, text=True, timeout=60, env=_launch.env())


def test_split_group_needs_bound_device():
    # torch 2.13: a default group without device_id cannot be split (gloo cannot bind one)
    p = _one_rank("""
try:
    dist.split_group(split_ranks=[[0]])
except RuntimeError as e:
    print("ERR", e)
""")
    assert "ERR No device associated with the default pg, not safe to split" in p.stdout, \
        p.stderr


def test_breakpoint_without_terminal():
    # stdin is /dev/null: pdb reads EOF on the first prompt and quits with bdb.BdbQuit,
    # as torch's breakpoint does; the banner names the frame to go 'up' to
    # skip counts calls made with skip > 0 from any line (torch 2.13: a, b, c below give
    # skipped, stopped, stopped); another rank's breakpoint just passes the barrier
    p = _one_rank("""
def call(tag):
    try:
        dist.breakpoint(skip=1)
        print(tag, "skipped")
    except bdb.BdbQuit:
        print(tag, "stopped")
call("a"); call("b")
try:
    dist.breakpoint(skip=1)
    print("c skipped")
except bdb.BdbQuit:
    print("c stopped")
dist.breakpoint(rank=3)
print("d passed")
""")
    assert "Type 'up' to get to the frame that called dist.breakpoint(rank=0)" in p.stdout
    got = [ln for ln in p.stdout.splitlines() if ln[:2] in ("a ", "b ", "c ", "d ")]
    assert got == ["a skipped", "b stopped", "c stopped", "d passed"], p.stdout + p.stderr


def test_subgroups_on_two_mpi_ranks(tmp_path):
    p = _launch.mpiexec("dist_api_gaps.py", tmp_path, timeout=120)
    assert p.returncode == 0, p.stdout[-2000:] + p.stderr[-2000:]
    per_rank = _launch.results(tmp_path)
    assert not _launch.failures(per_rank), _launch.failures(per_rank)
    assert all(len(r) == 7 for r in per_rank)


def _rdz_modules():
    import torch.distributed.rendezvous  # noqa: F401

    import numtorch.distributed.rendezvous  # noqa: F401

    return (sys.modules["numtorch.distributed.rendezvous"],
            sys.modules["torch.distributed.rendezvous"])


def test_rendezvous_handlers_and_errors():
    ours, theirs = _rdz_modules()
    assert dist.rendezvous is ours.rendezvous and tdist.rendezvous is theirs.rendezvous
    assert sorted(ours._rendezvous_handlers) == sorted(theirs._rendezvous_handlers)
    cases = [lambda m: m.register_rendezvous_handler("env", None),
             lambda m: next(m.rendezvous("foo://x")),
             lambda m: m.rendezvous(5),
             lambda m: next(m.rendezvous("file:///nonexistent/x", world_size=1)),
             lambda m: next(m.rendezvous("file:///nonexistent/x", rank=0))]
    for case in cases:
        got = []
        for m in (ours, theirs):
            with pytest.raises((RuntimeError, ValueError)) as e:
                case(m)
            got.append((type(e.value), str(e.value)))
        assert got[0][0].__name__ == got[1][0].__name__ and got[0][1] == got[1][1]


def test_rendezvous_custom_and_file(tmp_path):
    ours, theirs = _rdz_modules()
    seen = []
    for m in (ours, theirs):
        def handler(url, **kw):
            seen.append((url, kw))
            yield "store", 0, 1
        m.register_rendezvous_handler("dapi", handler)
        try:
            assert next(m.rendezvous("dapi://h/p?x=1", rank=0, world_size=1, tag=3)) == \
                ("store", 0, 1)
        finally:
            m._rendezvous_handlers.pop("dapi")
    assert seen[0] == seen[1] == ("dapi://h/p?x=1&rank=0&world_size=1", {"tag": 3})
    store, rank, size = next(dist.rendezvous(f"file://{tmp_path}/fs", rank=0, world_size=1))
    store.set("k", "v")
    assert (store.get("k"), rank, size) == (b"v", 0, 1)


@pytest.mark.parametrize("spec", ["worker1/cpu", "rank:0/cuda:1", "cpu", "worker0",
                                  "rank:1/cpu", "a/b/c", "rank:x/cpu", ""])
def test_remote_device(spec):
    from torch.distributed.remote_device import _remote_device as T

    from numtorch.distributed.remote_device import _remote_device as N

    try:
        t = T(spec)
    except ValueError as e:
        with pytest.raises(ValueError) as ours:
            N(spec)
        assert str(ours.value) == str(e)
        return
    n = N(spec)
    assert (n.worker_name(), n.rank(), str(n.device()), str(n)) == \
        (t.worker_name(), t.rank(), str(t.device()), str(t))
    assert n == N(spec) and hash(n) == hash(N(spec))


def test_c10d_logger_records_failures():
    p = _one_rank("""
import logging
from numtorch.distributed import c10d_logger as L
got = []
class H(logging.Handler):
    def emit(self, r):
        got.append((r.levelname, r.msg))
L._c10d_logger.addHandler(H())
@L._exception_logger
def boom(a):
    raise ValueError("bad")
try:
    boom(3)
except ValueError as e:
    print("reraised", e)
print(L._time_logger(lambda a: a + 1)(1))
print(got)
""")
    want = {"func_name": "boom", "pg_name": "None", "backend": "gloo", "world_size": "1",
            "group_size": "1", "global_rank": "0", "local_rank": "0", "error": "bad"}
    assert p.stdout.splitlines() == ["reraised bad", "2", repr([("DEBUG", want)])], \
        p.stdout + p.stderr
    from numtorch.distributed import c10d_logger as L

    assert L._get_msg_dict("f") == {"func_name": "f"}  # no job running
    assert L._c10d_logger.name == "c10d-NullHandler-default"
    with pytest.raises(KeyError):
        L._get_or_create_logger("x")


def test_init_int_device_id_is_torchs_error():
    p = _one_rank("", dev=", device_id=0")
    assert "ValueError: device_id is an int, but no accelerator support is found" in p.stderr


def test_utils_helpers_match_torch(capsys):
    import collections

    from torch.distributed import utils as TU

    import numtorch as nt
    from numtorch.distributed import utils as NU

    assert NU._pack_kwargs(1, 2, a=3, b=4) == TU._pack_kwargs(1, 2, a=3, b=4)
    flat = TU._pack_kwargs(1, 2, a=3, b=4)
    assert NU._unpack_kwargs(*flat) == TU._unpack_kwargs(*flat)
    for lib in (NU, TU):
        with pytest.raises(AssertionError, match="too many keys 3 vs. 2"):
            lib._unpack_kwargs((1, 2), ("a", "b", "c"))
    assert "too many keys" in capsys.readouterr().out
    sds = [{"a.x": 1, "a.y": 2, "b": 3} for _ in range(2)]
    NU._replace_by_prefix(sds[0], "a.", "c.")
    TU._replace_by_prefix(sds[1], "a.", "c.")
    assert sds[0] == sds[1] and list(sds[0]) == list(sds[1])
    P = collections.namedtuple("P", "u v")
    for lib, mk in ((NU, nt.ones), (TU, torch.ones)):
        out = lib._apply_to_tensors(lambda t: t * 2, {"k": [mk(1), (mk(1), 3)], "s": "x",
                                                      "p": P(mk(1), 1)})
        assert out["k"][0].tolist() == [2.0] and out["k"][1][1] == 3 and out["s"] == "x"
        assert type(out["p"]) is P and out["p"].u.tolist() == [2.0]
    a, k = NU._cast_forward_inputs(nt.float16, nt.ones(2), nt.arange(2), x=nt.ones(1))
    assert (a[0].dtype, a[1].dtype, k["x"].dtype) == (nt.float16, nt.int64, nt.float16)
    outer = nt.nn.Sequential(nt.nn.Linear(1, 1), nt.nn.Linear(1, 1))
    other = nt.nn.ReLU()
    assert NU._get_root_modules([outer[0], outer, other]) == [outer, other]
    assert dist.utils is NU
