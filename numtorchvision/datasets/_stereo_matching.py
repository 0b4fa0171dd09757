"""Stereo-matching datasets: left/right image pairs with disparity maps (and, where the data
set provides them, valid-disparity masks)."""

import json
import os
import random
import shutil
from glob import glob
from pathlib import Path

import numpy as np

from .._pil import pil
from ._dense_io import _read_pfm
from ._listed import check_choices, check_split
from .utils import download_and_extract_archive, verify_str_arg
from .vision import VisionDataset

__all__ = (
    "CREStereo",
    "CarlaStereo",
    "ETH3DStereo",
    "FallingThingsStereo",
    "InStereo2k",
    "Kitti2012Stereo",
    "Kitti2015Stereo",
    "Middlebury2014Stereo",
    "SceneFlowStereo",
    "SintelStereo",
)


def _read_pfm_file(file_name):
    return _read_pfm(file_name, slice_channels=1)


def _abs_pfm(file_name):
    """A one-channel PFM disparity (some are stored negated) as positive values."""
    return np.abs(_read_pfm_file(file_name))


def _png_disparity(file_name, divisor, dtype=None):
    """A disparity PNG whose integer levels are ``divisor`` times the disparity, as a
    ``(1, H, W)`` array."""
    levels = np.asarray(pil().open(file_name), dtype=dtype)
    return levels[None] / divisor


class StereoMatchingDataset(VisionDataset):
    """The base of the stereo datasets: subclasses fill ``_images`` and ``_disparities`` with
    (left, right) path pairs (a right disparity, or both, may be ``None``) and read one
    disparity file as ``(disparity (1, H, W), valid mask (H, W) or None)``.

    An item is ``(left, right, disparity)`` or, for datasets with a built-in mask or whose
    ``transforms`` produce one, ``(left, right, disparity, valid_mask)`` (left view only).
    ``transforms`` takes and returns ``(images, disparities, valid_masks)``, each a pair.
    """

    _has_built_in_disparity_mask = False

    def __init__(self, root, transforms=None):
        super().__init__(root=root)
        self.transforms = transforms
        self._images = []
        self._disparities = []

    def __len__(self):
        return len(self._images)

    def _read_img(self, file_path):
        img = pil().open(file_path)
        return img if img.mode == "RGB" else img.convert("RGB")

    def _scan_pairs(self, paths_left_pattern, paths_right_pattern=None):
        """The sorted files matching the left pattern, each with its right counterpart (the
        files matching the right pattern, in the same order) or ``None``."""
        lefts = sorted(glob(paths_left_pattern))
        rights = (sorted(glob(paths_right_pattern)) if paths_right_pattern
                  else [None] * len(lefts))
        for found, pattern in ((lefts, paths_left_pattern), (rights, paths_right_pattern)):
            if not found:
                raise FileNotFoundError(f"Could not find any files matching the patterns: "
                                        f"{pattern}")
        if len(lefts) != len(rights):
            raise ValueError(f"Found {len(lefts)} left files but {len(rights)} right files "
                             f"using:\n left pattern: {paths_left_pattern}\nright pattern: "
                             f"{paths_right_pattern}\n")
        return list(zip(lefts, rights))

    def _add_views(self, folder, left_images, right_images, left_disp, right_disp=None):
        """Append the pairs found under ``folder`` (a Path) for the four name patterns; a
        ``None`` left disparity pattern means no ground truth (test splits)."""
        images = self._scan_pairs(str(folder / left_images), str(folder / right_images))
        self._images += images
        if left_disp is None:
            self._disparities += [(None, None)] * len(images)
        else:
            self._disparities += self._scan_pairs(
                str(folder / left_disp), None if right_disp is None else str(folder / right_disp))

    def _read_disparity(self, file_path):
        raise NotImplementedError

    def __getitem__(self, index):
        left, right = self._images[index]
        images = (self._read_img(left), self._read_img(right))
        read = [self._read_disparity(p) for p in self._disparities[index]]
        disparities = (read[0][0], read[1][0])
        masks = (read[0][1], read[1][1])
        if self.transforms is not None:
            images, disparities, masks = self.transforms(images, disparities, masks)
        if self._has_built_in_disparity_mask or masks[0] is not None:
            return images[0], images[1], disparities[0], masks[0]
        return images[0], images[1], disparities[0]


class CarlaStereo(StereoMatchingDataset):
    """CARLA high-resolution stereo (from the CREStereo authors):
    ``carla-highres/trainingF/<scene>/im0.png``, ``im1.png``, ``disp0GT.pfm``, ``disp1GT.pfm``.

    Args:
        root (str or os.PathLike): the folder holding ``carla-highres/``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    def __init__(self, root, transforms=None):
        super().__init__(root, transforms)
        self._add_views(Path(root) / "carla-highres" / "trainingF" / "*", "im0.png", "im1.png",
                        "disp0GT.pfm", "disp1GT.pfm")

    def _read_disparity(self, file_path):
        return _abs_pfm(file_path), None


class Kitti2012Stereo(StereoMatchingDataset):
    """KITTI 2012 stereo: ``Kitti2012/{training,testing}/colored_0/*_10.png`` (left),
    ``colored_1`` (right) and ``training/disp_noc/*.png`` (disparity * 256, 0 = unknown).
    Items have four entries, the mask ``None``.

    Args:
        root (str or os.PathLike): the folder holding ``Kitti2012/``.
        split (str): ``"train"`` or ``"test"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    _has_built_in_disparity_mask = True

    def __init__(self, root, split="train", transforms=None):
        super().__init__(root, transforms)
        verify_str_arg(split, "split", valid_values=("train", "test"))
        self._add_views(Path(root) / "Kitti2012" / (split + "ing"), "colored_0/*_10.png",
                        "colored_1/*_10.png", "disp_noc/*.png" if split == "train" else None)

    def _read_disparity(self, file_path):
        if file_path is None:
            return None, None
        return _png_disparity(file_path, 256.0), None


class Kitti2015Stereo(Kitti2012Stereo):
    """KITTI 2015 stereo: ``Kitti2015/{training,testing}/image_2/*.png`` (left), ``image_3``
    (right), ``training/disp_occ_0`` and ``disp_occ_1`` (disparity * 256).

    Args as :class:`Kitti2012Stereo`.
    """

    def __init__(self, root, split="train", transforms=None):
        StereoMatchingDataset.__init__(self, root, transforms)
        verify_str_arg(split, "split", valid_values=("train", "test"))
        train = split == "train"
        self._add_views(Path(root) / "Kitti2015" / (split + "ing"), "image_2/*.png",
                        "image_3/*.png", "disp_occ_0/*.png" if train else None,
                        "disp_occ_1/*.png" if train else None)


class Middlebury2014Stereo(StereoMatchingDataset):
    """Middlebury 2014 stereo: ``Middlebury2014/<split>/<scene>[-perfect|-imperfect]/im0.png``,
    ``im1.png`` (and the ambient views ``im1E.png``, ``im1L.png``), ``disp0.pfm``,
    ``disp1.pfm``. The valid mask marks finite, positive disparities.

    Args:
        root (str or os.PathLike): the folder holding (or to hold) ``Middlebury2014/``.
        split (str): ``"train"``, ``"additional"`` or ``"test"``.
        calibration (str or None): ``"perfect"``, ``"imperfect"`` or ``"both"``; ``None`` for
            the test split, which has no calibration variants.
        use_ambient_views (bool): read the right view from one of ``im1.png``, ``im1E.png``,
            ``im1L.png`` (those present) chosen with ``random.choice``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
        download (bool): fetch the split's scene archives first.
    """

    splits = {
        "train": ["Adirondack", "Jadeplant", "Motorcycle", "Piano", "Pipes", "Playroom",
                  "Playtable", "Recycle", "Shelves", "Vintage"],
        "additional": ["Backpack", "Bicycle1", "Cable", "Classroom1", "Couch", "Flowers", "Mask",
                       "Shopvac", "Sticks", "Storage", "Sword1", "Sword2", "Umbrella"],
        "test": ["Plants", "Classroom2E", "Classroom2", "Australia", "DjembeL", "CrusadeP",
                 "Crusade", "Hoops", "Bicycle2", "Staircase", "Newkuba", "AustraliaP", "Djembe",
                 "Livingroom", "Computer"],
    }

    _has_built_in_disparity_mask = True

    _SCENES_URL = "https://vision.middlebury.edu/stereo/data/scenes2014/zip"
    _TEST_URL = "https://vision.middlebury.edu/stereo/submit3/zip/MiddEval3-data-F.zip"

    def __init__(self, root, split="train", calibration="perfect", use_ambient_views=False,
                 transforms=None, download=False):
        super().__init__(root, transforms)
        self.split = check_split(split, ("train", "test", "additional"))
        if calibration:
            verify_str_arg(calibration, "calibration",
                           valid_values=("perfect", "imperfect", "both", None))
            if split == "test":
                raise ValueError("Split 'test' has only no calibration settings, please set "
                                 "`calibration=None`.")
        elif split != "test":
            raise ValueError(f"Split '{split}' has calibration settings, however None was "
                             f"provided as an argument.\nSetting calibration to 'perfect' for "
                             f"split '{split}'. Available calibration settings are: 'perfect', "
                             f"'imperfect', 'both'.")
        base = Path(root) / "Middlebury2014"
        if download:
            self._download_dataset(base)
        self.use_ambient_views = use_ambient_views
        if not os.path.exists(base / split):
            raise FileNotFoundError(f"The {split} directory was not found in the provided root "
                                    f"directory")
        if split == "test":
            suffixes = [""]
        else:
            suffixes = ["-perfect", "-imperfect"] if calibration == "both" else [f"-{calibration}"]
        for suffix in suffixes:
            has_gt = split != "test"
            self._add_views(base / split / f"*{suffix}", "im0.png", "im1.png",
                            "disp0.pfm" if has_gt else None, "disp1.pfm" if has_gt else None)

    def _read_img(self, file_path):
        file_path = Path(file_path)
        if file_path.name == "im1.png" and self.use_ambient_views:
            views = [file_path.parent / name for name in ("im1E.png", "im1L.png")]
            views = [p for p in views if os.path.exists(p)] + [file_path]
            file_path = random.choice(views)
        return super()._read_img(file_path)

    def _read_disparity(self, file_path):
        if file_path is None:
            return None, None
        disparity = _abs_pfm(file_path)
        disparity[disparity == np.inf] = 0  # inf marks occluded / unknown pixels
        return disparity, (disparity > 0).squeeze(0)

    def _download_dataset(self, root):
        # both calibrations of every scene of the split, whatever ``calibration`` asks for
        root = Path(root)
        if self.split == "test":
            if os.path.isdir(root / "test"):
                return
            download_and_extract_archive(url=self._TEST_URL, download_root=str(root),
                                         remove_finished=True)
            unpacked = root / "MiddEval3" / "testF"
            os.makedirs(root / "test", exist_ok=True)
            for scene in sorted(os.listdir(unpacked)):
                if os.path.isdir(unpacked / scene):
                    shutil.move(str(unpacked / scene), str(root / "test"))
            shutil.rmtree(str(root / "MiddEval3"))
            return
        split_root = root / self.split
        for scene in self.splits[self.split]:
            for calibration in ("perfect", "imperfect"):
                name = f"{scene}-{calibration}"
                if not os.path.isdir(split_root / name):
                    download_and_extract_archive(url=f"{self._SCENES_URL}/{name}.zip",
                                                 filename=f"{name}.zip",
                                                 download_root=str(split_root),
                                                 remove_finished=True)


class ETH3DStereo(StereoMatchingDataset):
    """ETH3D low-res two-view: ``ETH3D/two_view_training/<scene>/im0.png``, ``im1.png``
    (``two_view_test`` for the test split) and ``two_view_training_gt/<scene>/disp0GT.pfm``
    with its ``mask0nocc.png`` valid mask (left view only).

    Args:
        root (str or os.PathLike): the folder holding ``ETH3D/``.
        split (str): ``"train"`` or ``"test"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    _has_built_in_disparity_mask = True

    def __init__(self, root, split="train", transforms=None):
        super().__init__(root, transforms)
        verify_str_arg(split, "split", valid_values=("train", "test"))
        base = Path(root) / "ETH3D"
        folder = "two_view_training" if split == "train" else "two_view_test"
        self._add_views(base, f"{folder}/*/im0.png", f"{folder}/*/im1.png",
                        "two_view_training_gt/*/disp0GT.pfm" if split == "train" else None)

    def _read_disparity(self, file_path):
        if file_path is None:
            return None, None
        mask = pil().open(Path(file_path).parent / "mask0nocc.png")
        return _abs_pfm(file_path), np.asarray(mask).astype(bool)


class CREStereo(StereoMatchingDataset):
    """The CREStereo synthetic set: ``CREStereo/{shapenet,reflective,tree,hole}/
    <id>_left.jpg``, ``_right.jpg``, ``_left.disp.png``, ``_right.disp.png`` (disparity * 32).
    Items have four entries, the mask ``None``.

    Args:
        root (str or os.PathLike): the folder holding ``CREStereo/``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    _has_built_in_disparity_mask = True

    def __init__(self, root, transforms=None):
        super().__init__(root, transforms)
        for part in ("shapenet", "reflective", "tree", "hole"):
            self._add_views(Path(root) / "CREStereo" / part, "*_left.jpg", "*_right.jpg",
                            "*_left.disp.png", "*_right.disp.png")

    def _read_disparity(self, file_path):
        return _png_disparity(file_path, 32.0, np.float32), None


class FallingThingsStereo(StereoMatchingDataset):
    """NVIDIA Falling Things: ``FallingThings/single/<object>/<scene>/`` and
    ``FallingThings/mixed/<scene>/`` with ``*.left.jpg``, ``*.right.jpg`` and 16-bit depth PNGs
    ``*.{left,right}.depth.png``, turned into disparity with the focal length of the scene's
    ``_camera_settings.json`` (baseline 6 cm, depth in 1/100 units).

    Args:
        root (str or os.PathLike): the folder holding ``FallingThings/``.
        variant (str): ``"single"``, ``"mixed"`` or ``"both"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    def __init__(self, root, variant="single", transforms=None):
        super().__init__(root, transforms)
        verify_str_arg(variant, "variant", valid_values=("single", "mixed", "both"))
        depth = {"single": "*/*", "mixed": "*"}
        for part in ("single", "mixed"):
            if variant in (part, "both"):
                self._add_views(Path(root) / "FallingThings" / part / depth[part], "*.left.jpg",
                                "*.right.jpg", "*.left.depth.png", "*.right.depth.png")

    def _read_disparity(self, file_path):
        depth = np.asarray(pil().open(file_path))
        with open(Path(file_path).parent / "_camera_settings.json") as f:
            focal = json.load(f)["camera_settings"][0]["intrinsic_settings"]["fx"]
        baseline, units = 6, 100
        return ((baseline * focal * units) / depth.astype(np.float32))[None], None


class SceneFlowStereo(StereoMatchingDataset):
    """The Scene Flow datasets' stereo pairs: ``SceneFlow/<variant>/frames_<pass>pass/.../
    {left,right}/*.png`` with ``.pfm`` disparities in ``disparity/.../{left,right}/``
    (``<scene>`` for Monkaa, ``<a>/<b>/<c>`` for FlyingThings3D and Driving).

    Args:
        root (str or os.PathLike): the folder holding ``SceneFlow/``.
        variant (str): ``"FlyingThings3D"``, ``"Driving"`` or ``"Monkaa"``.
        pass_name (str): ``"clean"``, ``"final"`` or ``"both"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    def __init__(self, root, variant="FlyingThings3D", pass_name="clean", transforms=None):
        super().__init__(root, transforms)
        check_choices(variant=(variant, ("FlyingThings3D", "Driving", "Monkaa")),
                      pass_name=(pass_name, ("clean", "final", "both")))
        passes = ["clean", "final"] if pass_name == "both" else [pass_name]
        nesting = "*" if variant == "Monkaa" else "*/*/*"
        base = Path(root) / "SceneFlow" / variant
        for name in passes:
            frames = f"frames_{name}pass/{nesting}"
            self._add_views(base, f"{frames}/left/*.png", f"{frames}/right/*.png",
                            f"disparity/{nesting}/left/*.pfm", f"disparity/{nesting}/right/*.pfm")

    def _read_disparity(self, file_path):
        return _abs_pfm(file_path), None


class SintelStereo(StereoMatchingDataset):
    """MPI Sintel stereo: ``Sintel/training/{final,clean}_{left,right}/<scene>/*.png`` with
    RGB-encoded disparities in ``training/disparities/<scene>/`` and the ``occlusions`` and
    ``outofframe`` masks beside them; the valid mask is neither occluded nor out of frame.

    Args:
        root (str or os.PathLike): the folder holding ``Sintel/``.
        pass_name (str): ``"final"``, ``"clean"`` or ``"both"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    _has_built_in_disparity_mask = True

    def __init__(self, root, pass_name="final", transforms=None):
        super().__init__(root, transforms)
        verify_str_arg(pass_name, "pass_name", valid_values=("final", "clean", "both"))
        passes = ["final", "clean"] if pass_name == "both" else [pass_name]
        base = Path(root) / "Sintel" / "training"
        for name in passes:
            self._add_views(base, f"{name}_left/*/*.png", f"{name}_right/*/*.png",
                            "disparities/*/*.png")

    def _get_occlussion_mask_paths(self, file_path):
        path = Path(file_path)
        training = path.parent.parent.parent
        found = []
        for folder, what in (("occlusions", "Occlusion mask"), ("outofframe", "Out of frame mask")):
            mask = str(training / folder / path.parent.name / path.name)
            if not os.path.exists(mask):
                raise FileNotFoundError(f"{what} {mask} does not exist")
            found.append(mask)
        return tuple(found)

    def _read_disparity(self, file_path):
        if file_path is None:
            return None, None
        rgb = np.asarray(pil().open(file_path), dtype=np.float32)
        # disparity = R * 4 + G / 2**6 + B / 2**14
        disparity = (rgb[..., 0] * 4 + rgb[..., 1] / 2 ** 6 + rgb[..., 2] / 2 ** 14)[None]
        valid = None
        for mask in self._get_occlussion_mask_paths(file_path):
            clear = np.asarray(pil().open(mask)) == 0
            valid = clear if valid is None else valid & clear
        return disparity, valid


class InStereo2k(StereoMatchingDataset):
    """InStereo2K: ``InStereo2k/{train,test}/<scene>/left.png``, ``right.png``,
    ``left_disp.png``, ``right_disp.png`` (disparity * 1024).

    Args:
        root (str or os.PathLike): the folder holding ``InStereo2k/``.
        split (str): ``"train"`` or ``"test"``.
        transforms (callable, optional): see :class:`StereoMatchingDataset`.
    """

    def __init__(self, root, split="train", transforms=None):
        super().__init__(root, transforms)
        base = Path(root) / "InStereo2k" / split  # before the check, as torchvision
        verify_str_arg(split, "split", valid_values=("train", "test"))
        self._add_views(base / "*", "left.png", "right.png",
                        "left_disp.png", "right_disp.png")

    def _read_disparity(self, file_path):
        return _png_disparity(file_path, 1024.0, np.float32), None
