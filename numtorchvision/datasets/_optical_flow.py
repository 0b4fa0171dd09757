"""Optical-flow datasets: pairs of consecutive frames with the flow between them (and, for
the KITTI-style PNG ground truth, a valid-flow mask)."""

import itertools
import os
from glob import glob
from pathlib import Path

import numpy as np

from numtorch.utils.data import ConcatDataset

from ._dense_io import _read_16bits_png_with_flow_and_valid_mask, _read_flo, _read_pfm
from ._listed import check_choices
from .folder import default_loader
from .utils import verify_str_arg
from .vision import VisionDataset

__all__ = ("HD1K", "FlyingChairs", "FlyingThings3D", "KittiFlow", "Sintel")


def _sorted_glob(*parts):
    return sorted(glob(str(Path(*parts))))


def _consecutive(frames):
    """[[f0, f1], [f1, f2], ...]"""
    return [[a, b] for a, b in zip(frames, frames[1:])]


class FlowDataset(VisionDataset):
    """The base of the flow datasets: subclasses fill ``_image_list`` (pairs of frame
    paths) and ``_flow_list`` (one flow file per pair, empty for test splits) and say how to
    read a flow file.

    An item is ``(img1, img2, flow)`` with ``flow`` a ``(2, H, W)`` float32 array (``None``
    without ground truth); datasets whose files carry a valid-flow mask, or whose
    ``transforms`` produce one, give ``(img1, img2, flow, valid_flow_mask)``.
    ``transforms`` takes and returns all four (the mask may be ``None``).
    """

    _has_builtin_flow_mask = False

    def __init__(self, root, transforms=None, loader=default_loader):
        super().__init__(root=root)
        self.transforms = transforms
        self._flow_list = []
        self._image_list = []
        self._loader = loader

    def _read_img(self, file_name):
        return self._loader(file_name)

    def _read_flow(self, file_name):
        raise NotImplementedError

    def __getitem__(self, index):
        first, second = self._image_list[index]
        img1, img2 = self._read_img(first), self._read_img(second)
        flow = valid = None
        if self._flow_list:
            flow = self._read_flow(self._flow_list[index])
            if self._has_builtin_flow_mask:
                flow, valid = flow
        if self.transforms is not None:
            img1, img2, flow, valid = self.transforms(img1, img2, flow, valid)
        if self._has_builtin_flow_mask or valid is not None:
            return img1, img2, flow, valid
        return img1, img2, flow

    def __len__(self):
        return len(self._image_list)

    def __rmul__(self, v):
        return ConcatDataset([self] * v)


class Sintel(FlowDataset):
    """MPI Sintel: ``Sintel/{training,test}/{clean,final}/<scene>/frame_XXXX.png`` with the
    ``.flo`` ground truth in ``Sintel/training/flow/<scene>/``.

    Args:
        root (str or os.PathLike): the folder holding ``Sintel/``.
        split (str): ``"train"`` or ``"test"``.
        pass_name (str): ``"clean"``, ``"final"`` or ``"both"``.
        transforms (callable, optional): see :class:`FlowDataset`.
        loader (callable): reads a frame (default: an RGB PIL image).
    """

    def __init__(self, root, split="train", pass_name="clean", transforms=None,
                 loader=default_loader):
        super().__init__(root=root, transforms=transforms, loader=loader)
        check_choices(split=(split, ("train", "test")),
                      pass_name=(pass_name, ("clean", "final", "both")))
        passes = ["clean", "final"] if pass_name == "both" else [pass_name]
        base = Path(root) / "Sintel"
        folder = "training" if split == "train" else split
        for name in passes:
            images = base / folder / name
            for scene in os.listdir(images):
                self._image_list += _consecutive(_sorted_glob(images, scene, "*.png"))
                if split == "train":
                    self._flow_list += _sorted_glob(base, "training", "flow", scene, "*.flo")

    def _read_flow(self, file_name):
        return _read_flo(file_name)


class KittiFlow(FlowDataset):
    """KITTI 2015 flow: frames ``KittiFlow/{training,testing}/image_2/<id>_10.png`` and
    ``_11.png``, flow PNGs (with their valid mask) in ``training/flow_occ/<id>_10.png``.
    Items always have four entries (flow and mask ``None`` for the test split).

    Args as :class:`Sintel` (no ``pass_name``).
    """

    _has_builtin_flow_mask = True

    def __init__(self, root, split="train", transforms=None, loader=default_loader):
        super().__init__(root=root, transforms=transforms, loader=loader)
        verify_str_arg(split, "split", valid_values=("train", "test"))
        base = Path(root) / "KittiFlow" / (split + "ing")
        firsts = _sorted_glob(base, "image_2", "*_10.png")
        seconds = _sorted_glob(base, "image_2", "*_11.png")
        if not firsts or not seconds:
            raise FileNotFoundError("Could not find the Kitti flow images. Please make sure the "
                                    "directory structure is correct.")
        self._image_list = [[a, b] for a, b in zip(firsts, seconds)]
        if split == "train":
            self._flow_list = _sorted_glob(base, "flow_occ", "*_10.png")

    def _read_flow(self, file_name):
        return _read_16bits_png_with_flow_and_valid_mask(file_name)


class FlyingChairs(FlowDataset):
    """FlyingChairs: ``FlyingChairs/data/XXXXX_img1.ppm``, ``_img2.ppm``, ``_flow.flo`` and
    the split file ``FlyingChairs/FlyingChairs_train_val.txt`` (1 = train, 2 = val per pair).

    Args:
        root (str or os.PathLike): the folder holding ``FlyingChairs/``.
        split (str): ``"train"`` or ``"val"``.
        transforms (callable, optional): see :class:`FlowDataset`.
    """

    def __init__(self, root, split="train", transforms=None):
        super().__init__(root=root, transforms=transforms)
        verify_str_arg(split, "split", valid_values=("train", "val"))
        base = Path(root) / "FlyingChairs"
        images = _sorted_glob(base, "data", "*.ppm")
        flows = _sorted_glob(base, "data", "*.flo")
        split_file = base / "FlyingChairs_train_val.txt"
        if not os.path.exists(split_file):
            raise FileNotFoundError("The FlyingChairs_train_val.txt file was not found - please "
                                    "download it from the dataset page (see docstring).")
        wanted = 1 if split == "train" else 2
        marks = np.loadtxt(str(split_file), dtype=np.int32)
        for i, flow in enumerate(flows):
            if marks[i] == wanted:
                self._flow_list.append(flow)
                self._image_list.append([images[2 * i], images[2 * i + 1]])

    def _read_flow(self, file_name):
        return _read_flo(file_name)


class FlyingThings3D(FlowDataset):
    """FlyingThings3D flow: frames in ``FlyingThings3D/frames_<pass>pass/<TRAIN|TEST>/<A|B|C>/
    <seq>/<left|right>/``, ``.pfm`` flow in ``optical_flow/<TRAIN|TEST>/<A|B|C>/<seq>/
    <into_future|into_past>/<left|right>/``. Both directions are used: a past-flow pair is
    (next frame, frame).

    Args:
        root (str or os.PathLike): the folder holding ``FlyingThings3D/``.
        split (str): ``"train"`` or ``"test"``.
        pass_name (str): ``"clean"``, ``"final"`` or ``"both"``.
        camera (str): ``"left"``, ``"right"`` or ``"both"``.
        transforms, loader: as :class:`Sintel`.
    """

    def __init__(self, root, split="train", pass_name="clean", camera="left", transforms=None,
                 loader=default_loader):
        super().__init__(root=root, transforms=transforms, loader=loader)
        check_choices(split=(split, ("train", "test")),
                      pass_name=(pass_name, ("clean", "final", "both")),
                      camera=(camera, ("left", "right", "both")))
        split = split.upper()
        passes = {"clean": ["frames_cleanpass"], "final": ["frames_finalpass"],
                  "both": ["frames_cleanpass", "frames_finalpass"]}[pass_name]
        cameras = ["left", "right"] if camera == "both" else [camera]
        base = Path(root) / "FlyingThings3D"
        for frames, cam, direction in itertools.product(passes, cameras,
                                                        ("into_future", "into_past")):
            image_dirs = sorted(Path(d) / cam for d in _sorted_glob(base, frames, split, "*/*"))
            flow_dirs = sorted(Path(d) / direction / cam
                               for d in _sorted_glob(base, "optical_flow", split, "*/*"))
            if not image_dirs or not flow_dirs:
                raise FileNotFoundError("Could not find the FlyingThings3D flow images. Please "
                                        "make sure the directory structure is correct.")
            for image_dir, flow_dir in zip(image_dirs, flow_dirs):
                images = _sorted_glob(image_dir, "*.png")
                flows = _sorted_glob(flow_dir, "*.pfm")
                step = 0 if direction == "into_future" else 1
                for i in range(len(flows) - 1):
                    pair = [images[i], images[i + 1]]
                    self._image_list.append(pair if step == 0 else pair[::-1])
                    self._flow_list.append(flows[i + step])

    def _read_flow(self, file_name):
        return _read_pfm(file_name)


class HD1K(FlowDataset):
    """HD1K: training frames ``hd1k/hd1k_input/image_2/<seq>_<frame>.png`` (36 sequences)
    with KITTI-style flow PNGs in ``hd1k/hd1k_flow_gt/flow_occ/``; test pairs
    ``hd1k/hd1k_challenge/image_2/*10.png`` / ``*11.png``. Items always have four entries.

    Args as :class:`KittiFlow`.
    """

    _has_builtin_flow_mask = True

    def __init__(self, root, split="train", transforms=None, loader=default_loader):
        super().__init__(root=root, transforms=transforms, loader=loader)
        verify_str_arg(split, "split", valid_values=("train", "test"))
        base = Path(root) / "hd1k"
        if split == "train":
            for seq in range(36):
                flows = _sorted_glob(base, "hd1k_flow_gt", "flow_occ", f"{seq:06d}_*.png")
                frames = _sorted_glob(base, "hd1k_input", "image_2", f"{seq:06d}_*.png")
                pairs = _consecutive(frames)[:max(len(flows) - 1, 0)]
                self._flow_list += flows[:len(pairs)]
                self._image_list += pairs
        else:
            firsts = _sorted_glob(base, "hd1k_challenge", "image_2", "*10.png")
            seconds = _sorted_glob(base, "hd1k_challenge", "image_2", "*11.png")
            self._image_list = [[a, b] for a, b in zip(firsts, seconds)]
        if not self._image_list:
            raise FileNotFoundError("Could not find the HD1K images. Please make sure the "
                                    "directory structure is correct.")

    def _read_flow(self, file_name):
        return _read_16bits_png_with_flow_and_valid_mask(file_name)
