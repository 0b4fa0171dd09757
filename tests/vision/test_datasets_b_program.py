"""tests/vision/datasets_b_programs/dense_pipelines.py run under real torch + torchvision and
under ``python -m numtorch.run`` on the same fabricated data: the same printout."""

import os

from . import _fabricate_b as fab
from .test_v2_programs import _run, _torch_env

HERE = os.path.dirname(os.path.abspath(__file__))


def test_dense_pipelines_program(tmp_path):
    root = str(tmp_path)
    fab.voc_tree(root)
    fab.kitti_tree(root)
    fab.flyingchairs_tree(root)
    fab.carla_tree(root)
    fab.instereo2k_tree(root)
    path = os.path.join(HERE, "datasets_b_programs", "dense_pipelines.py")
    want = _run([path, root], env=_torch_env())
    got = _run(["-m", "numtorch.run", path, root])
    assert want.count("\n") >= 12
    assert got == want
