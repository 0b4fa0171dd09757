"""Session 49: DistributedDataParallel's flags against torch's, on a model whose branch some
forwards skip (``ranks/s49_ddp.py``, run by torch's launcher and by numtorch's).

Found: ``static_graph=True`` failed on a parameter the forward never uses ("Expected to have
finished reduction...") where torch allows it (the unused set is static); two forwards
before one backward stopped in the autograd engine with an internal AssertionError (the
second forward's walk moved a parameter's accumulator above the first forward's nodes
feeding it); with ``find_unused_parameters`` the second forward raised the unfinished-
reduction error (the unused parameters were marked ready at forward time, not at the first
gradient); a no_sync forward after an unfinished reduction went on silently, so the ranks'
replicas drifted apart, where torch refuses to start the forward; the unfinished-reduction
message lacked torch's TORCH_DISTRIBUTED_DEBUG advice. static_graph with reentrant activation
checkpointing (a parameter's gradient arriving inside an inner backward, or twice) must
average the gradients as torch's does. Each case's gradient and parameter
sums (or the exception) are compared per rank."""

import os

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s49_ddp.py")
CASES = ["plain_unused_fails", "find_unused", "find_unused_sometimes",
         "find_unused_rank_dependent", "static_graph_unused", "static_graph_rank_dependent",
         "static_graph_bucket_view", "find_unused_view_no_sync", "no_sync_unfinished_fails",
         "no_sync_all_used", "two_forwards_fail", "two_forwards_all_used",
         "two_forwards_static", "two_forwards_find_unused", "graph_across_no_sync",
         "tiny_buckets_as_views", "checkpoint_reentrant", "checkpoint_reentrant_static",
         "checkpoint_reentrant_twice_static", "checkpoint_twice_static", "checkpoint_twice"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s49_ddp"))
    return _launch.oracle_runs(SCRIPT, out, timeout=150)


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("name", CASES)
def test_ddp_case_matches_torch(both, name, rank):
    theirs, ours = both["torch", rank], both["numtorch", rank]
    assert name in theirs, sorted(theirs)
    assert ours.get(name, "<missing>") == theirs[name]
