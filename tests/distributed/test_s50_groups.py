"""Session 50: ``dist.get_pg_count()`` was the number of groups this rank was a member of
(so it differed between ranks, and dropped when a group was destroyed) where torch counts every
group created since init on every rank, member or not, never lowered by destroying one, and 0
before init and after the job's groups are gone. One rank program (``ranks/s50_groups.py``) is
run by torch's launcher (gloo) and by numtorch's; each case is compared per rank."""

import os

import pytest

from . import _launch

SCRIPT = os.path.join(_launch.RANKS, "s50_groups.py")
CASES = ["before_init", "init", "world_name", "new_group_one_member", "new_group_both",
         "new_group_refused", "new_subgroups", "by_enumeration", "after_destroying_a_subgroup",
         "after_destroying_all"]


@pytest.fixture(scope="module")
def both(tmp_path_factory):
    out = str(tmp_path_factory.mktemp("s50_groups"))
    return _launch.oracle_runs(SCRIPT, out, timeout=150)


@pytest.mark.parametrize("rank", [0, 1])
@pytest.mark.parametrize("name", CASES)
def test_group_count_matches_torch(both, name, rank):
    theirs, ours = both["torch", rank], both["numtorch", rank]
    assert name in theirs, sorted(theirs)
    assert ours.get(name, "<missing>") == theirs[name]
