"""Session 47: one rank program run by real torch's launcher (gloo) and by numtorch's, case by
case equal (values, exception classes and messages): ReduceOp.PREMUL_SUM and
``_make_nccl_premul_sum`` refused as torch's gloo does, ``new_group`` rank checks in torch's
order and words, ``distributed_c10d._get_default_group`` / ``_rank_not_in_group``."""

import json
import os
import sys

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s47_oracle.py")


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s47_oracle"))
    ours, theirs = _launch.run_all([
        [sys.executable, "-m", "numtorch.run", "-m", "torch.distributed.run", "--standalone",
         "--nproc-per-node=2", SCRIPT, out, "numtorch"],
        [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc-per-node=2",
         SCRIPT, out, "torch"]], timeout=150)
    assert theirs.returncode == 0, theirs.stderr[-3000:]
    assert ours.returncode == 0, ours.stdout[-3000:] + ours.stderr[-3000:]
    got = {}
    for tag in ("numtorch", "torch"):
        for r in (0, 1):
            with open(os.path.join(out, f"{tag}_rank{r}.json")) as f:
                got[tag, r] = json.load(f)
    return got


CASES = ["pre_get_rank", "pre_get_world_size", "pre_barrier", "pre_all_reduce",
         "pre_default_group", "pre_destroy", "premul_factor", "premul_tensor_factor",
         "premul_reduce_scatter", "premul_type", "sum_after_premul", "default_group_is_world",
         "default_group_size", "new_group_out_of_range", "new_group_negative",
         "new_group_too_big", "new_group_dups_sorted", "new_group_dups_global_sync",
         "not_in_group", "world_after", "post_default_group"]


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("name", CASES)
def test_case_matches_torch(both, name, rank):
    theirs, ours = both["torch", rank], both["numtorch", rank]
    assert name in theirs, sorted(theirs)
    assert ours.get(name, "<missing>") == theirs[name]
