"""Small dataset files in the real on-disk formats, for the dataset tests."""

import gzip
import hashlib
import io
import json
import os
import pickle
import tarfile

import numpy as np
from PIL import Image


def md5(path_or_bytes):
    data = path_or_bytes
    if not isinstance(data, bytes):
        with open(path_or_bytes, "rb") as f:
            data = f.read()
    return hashlib.md5(data).hexdigest()


def idx_bytes(arr):
    """An IDX ("SN3 PascalVincent") file holding ``arr``."""
    codes = {np.dtype(np.uint8): 8, np.dtype(np.int8): 9, np.dtype(np.int16): 11,
             np.dtype(np.int32): 12, np.dtype(np.float32): 13, np.dtype(np.float64): 14}
    code = codes[arr.dtype]
    header = bytes([0, 0, code, arr.ndim]) + b"".join(int(s).to_bytes(4, "big")
                                                        for s in arr.shape)
    return header + arr.astype(arr.dtype.newbyteorder(">")).tobytes()


def mnist_arrays(n, seed=0, size=28):
    rng = np.random.default_rng(seed)
    images = rng.integers(0, 256, size=(n, size, size)).astype(np.uint8)
    labels = rng.integers(0, 10, size=n).astype(np.uint8)
    return images, labels


def mnist_files(n_train=40, n_test=20, seed=0, prefix=("train", "t10k")):
    """{file name: bytes} of the four uncompressed MNIST IDX files."""
    files = {}
    for split, n in zip(prefix, (n_train, n_test)):
        images, labels = mnist_arrays(n, seed + (split == prefix[1]))
        files[f"{split}-images-idx3-ubyte"] = idx_bytes(images)
        files[f"{split}-labels-idx1-ubyte"] = idx_bytes(labels)
    return files


def write_files(folder, files):
    for name, data in files.items():
        path = os.path.join(folder, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)


def gz(data):
    buf = io.BytesIO()
    with gzip.GzipFile(fileobj=buf, mode="wb", mtime=0) as f:
        f.write(data)
    return buf.getvalue()


def targz(members):
    """A .tar.gz archive of {path inside: bytes}."""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in sorted(members.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def cifar_members(base, n=10, classes=10, hundred=False, seed=0):
    """{path: bytes} of a CIFAR python-version folder with ``n`` images per batch."""
    rng = np.random.default_rng(seed)
    label_key = "fine_labels" if hundred else "labels"
    names = ["train", "test"] if hundred else [f"data_batch_{i}" for i in range(1, 6)] + [
        "test_batch"]
    members = {}
    for name in names:
        entry = {"data": rng.integers(0, 256, size=(n, 3072)).astype(np.uint8),
                 label_key: rng.integers(0, classes, size=n).tolist(), "batch_label": name}
        members[f"{base}/{name}"] = pickle.dumps(entry)
    meta_key = "fine_label_names" if hundred else "label_names"
    meta = {meta_key: [f"class{i}" for i in range(classes)]}
    members[f"{base}/{'meta' if hundred else 'batches.meta'}"] = pickle.dumps(meta)
    return members


def png_bytes(arr, fmt="PNG"):
    buf = io.BytesIO()
    Image.fromarray(arr).save(buf, format=fmt)
    return buf.getvalue()


def image_folder(root, classes=("cat", "dog", "zebra"), per_class=3, seed=0, size=(12, 10)):
    rng = np.random.default_rng(seed)
    for ci, cls in enumerate(classes):
        sub = os.path.join(root, cls, "nested") if ci == 1 else os.path.join(root, cls)
        os.makedirs(sub, exist_ok=True)
        for i in range(per_class):
            arr = rng.integers(0, 256, size=(*size, 3)).astype(np.uint8)
            ext = ["png", "jpg", "PNG", "bmp"][i % 4]
            Image.fromarray(arr).save(os.path.join(sub, f"img{i}.{ext}"),
                                      format={"jpg": "JPEG", "PNG": "PNG"}.get(ext, ext.upper()))
        with open(os.path.join(sub, "notes.txt"), "w") as f:
            f.write("not an image")


def coco(root, n_images=3, seed=0, captions=False):
    """Images and an annotation file (instances or captions); returns the JSON path."""
    rng = np.random.default_rng(seed)
    os.makedirs(root, exist_ok=True)
    images, anns = [], []
    for i in range(n_images):
        name = f"{i:012d}.jpg"
        Image.fromarray(rng.integers(0, 256, (8 + i, 10, 3)).astype(np.uint8)).save(
            os.path.join(root, name))
        images.append({"id": 100 - 7 * i, "file_name": name, "height": 8 + i, "width": 10})
    aid = 1
    for img in images[:-1]:  # the last image has no annotation
        for k in range(2):
            if captions:
                anns.append({"id": aid, "image_id": img["id"], "caption": f"caption {aid}"})
            else:
                anns.append({"id": aid, "image_id": img["id"], "category_id": 1 + k,
                             "bbox": [1.0, 2.0, 3.0 + k, 4.0], "area": 12.0, "iscrowd": 0,
                             "segmentation": [[1, 2, 3, 4, 5, 6]]})
            aid += 1
    data = {"images": images, "annotations": anns}
    if not captions:  # caption files have no categories
        data["categories"] = [{"id": 1, "name": "a", "supercategory": "x"},
                              {"id": 2, "name": "b", "supercategory": "x"}]
    path = os.path.join(root, "ann.json")
    with open(path, "w") as f:
        json.dump(data, f)
    return path
