"""DDP communication hooks on 2 MPI ranks (tests/distributed/ranks/ddp_hooks.py): the stock
default_hooks train as single-process training on the whole batch does (float16/bfloat16
compression within their rounding), GradBucket's facts, torch's registration errors."""

import os

import pytest

from . import _launch

pytestmark = pytest.mark.skipif(not os.path.exists(_launch.MPIEXEC),
                                reason="needs mpiexec (the distributed extra)")


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    out = tmp_path_factory.mktemp("ddp_hooks")
    proc = _launch.mpiexec("ddp_hooks.py", out, timeout=180)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return _launch.results(out, 2)


CASES = ["allreduce_hook", "allreduce_hook_small_buckets", "fp16_compress", "bf16_compress",
         "fp16_wrapper_of_allreduce", "builtin_type", "private_builtin", "grad_as_bucket_view",
         "bucket_facts", "register_twice", "not_callable"]


@pytest.mark.parametrize("case", CASES)
def test_hook_case(results, case):
    for rank, res in enumerate(results):
        assert res.get(f"hooks/{case}") == "ok", f"rank {rank}: {res.get(f'hooks/{case}')}"
