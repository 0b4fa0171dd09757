"""Files of the embedding projector: tensors.tsv, metadata.tsv, sprite.png and the config."""

import math
import os
import warnings

import numpy as np

from ._convert import encode_png, make_grid, make_np


def write_embedding(logdir, mat, metadata, label_img, global_step, tag, metadata_header):
    """Write one embedding's files under ``<logdir>/<step:05d>/<tag>`` and return its
    ``EmbeddingInfo`` for the projector config."""
    from tensorboard.plugins.projector.projector_config_pb2 import EmbeddingInfo

    mat = make_np(mat)
    if mat.ndim != 2:
        raise AssertionError("mat should be 2D, where mat.size(0) is the number of data points")
    step = 0 if global_step is None else global_step
    subdir = f"{str(step).zfill(5)}/{tag.replace('%', '%25').replace('/', '%2f')}"
    path = os.path.join(logdir, subdir)
    if os.path.isfile(path):
        raise ValueError(f"Path: `{path}` exists, but is a file. Cannot proceed.")
    if os.path.isdir(path):
        warnings.warn(f"Found existing embedding in `{path}`; its files are overwritten.")
    os.makedirs(path, exist_ok=True)
    info = EmbeddingInfo(tensor_name=f"{tag}:{str(step).zfill(5)}",
                         tensor_path=f"{subdir}/tensors.tsv")
    if metadata is not None:
        if len(metadata) != mat.shape[0]:
            raise AssertionError("#labels should equal with #data points")
        if metadata_header is None:
            rows = [str(x) for x in metadata]
        else:
            if len(metadata_header) != len(metadata[0]):
                raise AssertionError("len of header must be equal to the number of columns in "
                                     "metadata")
            rows = ["\t".join(str(e) for e in row) for row in [metadata_header] + list(metadata)]
        with open(os.path.join(path, "metadata.tsv"), "w", encoding="utf8") as f:
            f.writelines(r + "\n" for r in rows)
        info.metadata_path = f"{subdir}/metadata.tsv"
    if label_img is not None:
        imgs = make_np(label_img)
        if imgs.shape[0] != mat.shape[0]:
            raise AssertionError("#images should equal with #data points")
        _write_sprite(imgs, path)
        info.sprite.image_path = f"{subdir}/sprite.png"
        info.sprite.single_image_dim.extend([imgs.shape[3], imgs.shape[2]])
    with open(os.path.join(path, "tensors.tsv"), "w", encoding="utf8") as f:
        f.writelines("\t".join(repr(v) for v in row) + "\n" for row in mat.tolist())
    return info


def _write_sprite(imgs, path):
    """All thumbnails on one square sheet, row by row, as the projector expects."""
    per_row = math.ceil(imgs.shape[0] ** 0.5)
    grid = make_grid(imgs, ncols=per_row).transpose(1, 2, 0)
    side = grid.shape[1]
    sheet = np.zeros((side, side, 3))
    sheet[:grid.shape[0]] = grid[..., :3]
    with open(os.path.join(path, "sprite.png"), "wb") as f:
        f.write(encode_png(np.uint8((sheet * 255).clip(0, 255))))


def write_config(logdir, config):
    """(Re)write ``projector_config.pbtxt`` with every embedding logged so far."""
    from google.protobuf import text_format

    with open(os.path.join(logdir, "projector_config.pbtxt"), "w", encoding="utf8") as f:
        f.write(text_format.MessageToString(config))
