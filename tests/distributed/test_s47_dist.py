"""Session 47: one rank program run by real torch's launcher (gloo) and by numtorch's, case by
case equal (values, exception classes and messages): ReduceOp.PREMUL_SUM and
``_make_nccl_premul_sum`` refused as torch's gloo does, ``new_group`` rank checks in torch's
order and words, ``distributed_c10d._get_default_group`` / ``_rank_not_in_group``, the
mixed-dtype error of each collective (torch names the first tensor's dtype, in its argument
order), ``torch.distributed.nn(.functional)``'s differentiable collectives (values, gradients,
FutureWarnings), torch 2.13's ``all_gather_single`` / ``reduce_scatter_single`` (the old names
warn) and its differentiable ``_functional_collectives``; and a rank waiting for one that
destroyed its group fails instead of hanging."""

import os

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s47_oracle.py")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s47_oracle"))
    return _launch.oracle_runs(SCRIPT, out, timeout=150)


CASES = ["pre_get_rank", "pre_get_world_size", "pre_barrier", "pre_all_reduce",
         "pre_default_group", "pre_destroy", "premul_factor", "premul_tensor_factor",
         "premul_reduce_scatter", "premul_type", "sum_after_premul", "default_group_is_world",
         "default_group_size", "new_group_out_of_range", "new_group_negative",
         "new_group_too_big", "new_group_dups_sorted", "new_group_dups_global_sync",
         "not_in_group", "dtypes_all_gather", "dtypes_all_gather_list",
         "dtypes_reduce_scatter", "dtypes_coalesced", "dtypes_all_to_all",
         "dtypes_all_to_all_out", "dtypes_all_to_all_single", "a2a_in_split_sum",
         "a2a_out_split_sum", "a2a_out_split_len", "a2a_in_split_len", "dtypes_complex64_first",
         "dtypes_complex128_first", "world_after", "nn_all_reduce", "nn_all_reduce_max",
         "nn_all_gather", "nn_broadcast", "nn_reduce", "nn_all_to_all_single",
         "nn_all_to_all", "nn_scatter", "nn_gather", "nn_reduce_scatter", "fc_all_reduce",
         "fc_all_reduce_avg", "fc_all_gather_tensor", "fc_all_gather_single",
         "fc_reduce_scatter_tensor", "fc_reduce_scatter_single", "fc_all_to_all_single",
         "fc_broadcast", "all_gather_single", "all_gather_into_tensor_warns",
         "reduce_scatter_single", "reduce_scatter_tensor_warns",
         "post_default_group"]


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("name", CASES)
def test_case_matches_torch(both, name, rank):
    theirs, ours = both["torch", rank], both["numtorch", rank]
    assert name in theirs, sorted(theirs)
    assert ours.get(name, "<missing>") == theirs[name]



def test_peer_that_destroyed_its_group_fails_the_wait_not_hangs(both):
    """Rank 1 still waiting for rank 0, which called destroy_process_group and ended: torch's
    gloo fails the wait at once; numtorch on MPI waited out the group's timeout, and the
    finished rank then hung in MPI_Finalize after the waiting one gave up (the fixture's run
    ending at all is part of the check)."""
    assert both["torch", 1]["peer_left"] == ["RuntimeError", True]
    assert both["numtorch", 1]["peer_left"] == both["torch", 1]["peer_left"]
