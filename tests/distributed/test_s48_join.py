"""Session 48: DDP on uneven inputs. ``Join([ddp])`` failed on numtorch (DDP was not a
Joinable: no ``join_hook``), ``ddp.join()`` was not torch's ``Join``, and buffers were
synchronised from the lowest rank still training where torch takes the highest; a joined
rank's shadow backward overwrote its gradients (torch leaves them: ZeroRedundancyOptimizer's
join hook steps with them). Also torch's private older collective names
(``_all_gather_base``, ``_reduce_scatter_base``) and the c10d module's names programs import
from it (the collectives, ``Work``, ``_get_global_rank``, ``_object_to_tensor``...). One rank
program (``ranks/s48_join.py``) is run by torch's launcher (gloo) and by numtorch's, and each
case's values (parameters, buffers after training) or exception are compared."""

import os

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s48_join.py")
CASES = ["ddp_join", "ddp_join_rank1_first", "ddp_join_no_initial_divide", "join_manager",
         "join_manager_no_initial_divide", "join_batchnorm", "join_batchnorm_rank1_first",
         "join_no_sync", "join_even", "join_disabled_even", "join_throw", "after_throw",
         "joinable_surface", "zero_join", "zero_join_rank1_first", "zero_join_bucket_view",
         "zero_join_grad_as_bucket_view", "zero_unconsolidated", "all_gather_base",
         "reduce_scatter_base", "c10d_imports", "object_tensor_roundtrip", "unused_keeps_failing",
         "subgroups_of_one", "subgroups_of_two", "subgroups_too_big", "subgroups_zero",
         "recv_object_list_without_src", "after_all"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s48_join"))
    return _launch.oracle_runs(SCRIPT, out, timeout=150)


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("name", CASES)
def test_join_case_matches_torch(both, name, rank):
    theirs, ours = both["torch", rank], both["numtorch", rank]
    assert name in theirs, sorted(theirs)
    assert ours.get(name, "<missing>") == theirs[name]
