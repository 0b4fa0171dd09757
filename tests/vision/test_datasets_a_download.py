"""download=True for the DatasetsA datasets, both libraries against one loopback server.

Archives are fabricated with the real archives' inner layout. Each library's own download
helpers are wrapped so that the dataset's real URL (or Google Drive id) is served from the
loopback server and the real MD5 is replaced by the fabricated file's: the test then checks
that both libraries ask for the same URLs, unpack the same tree, read the same items, and
fetch nothing the second time.
"""

import importlib.util
import inspect
import io
import os
import sys

import numpy as np
import pytest
import torchvision.datasets as TD

import numtorchvision.datasets as D

from . import _fabricate as fab
from ._datasets_a import file_tree, image_bytes, same_dataset, serving, tar_bytes, zip_bytes

served = pytest.fixture(serving)

_HELPERS = ("download_url", "download_and_extract_archive", "download_file_from_google_drive")


def _redirect(monkeypatch, module, table, md5s, seen):
    """Wrap ``module``'s download helpers: original URL / Drive id -> loopback URL, original
    MD5 -> fabricated MD5; requested keys are appended to ``seen``."""
    for name in _HELPERS:
        orig = getattr(module, name, None)
        if orig is None:
            continue

        def fake(*args, _orig=orig, _name=name, **kwargs):
            a = inspect.signature(_orig).bind(*args, **kwargs).arguments
            key = a.get("url") or a.get("file_id")
            seen.append(key)
            md5 = md5s.get(a.get("md5"), a.get("md5"))
            if _name == "download_file_from_google_drive":
                http = sys.modules[_orig.__module__].download_url
                return http(table[key], a["root"], a.get("filename") or key, md5)
            a["url"], a["md5"] = table[key], md5
            return _orig(**a)

        monkeypatch.setattr(module, name, fake)


def _jpeg(seed, mode="RGB"):
    return image_bytes(seed, fmt="JPEG", mode=mode)


def _mat(**arrays):
    import scipy.io

    buf = io.BytesIO()
    scipy.io.savemat(buf, arrays)
    return buf.getvalue()


# name -> (constructor kwargs, {real url or drive id: file bytes}, class attribute patches)
def _cases():
    cases = {}
    flowers = "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
    labels = _mat(labels=np.array([[3, 1, 2, 1]], np.uint8))
    setid = _mat(trnid=np.array([[1, 4]], np.uint16), valid=np.array([[2, 3]], np.uint16),
                 tstid=np.array([[3, 4]], np.uint16))
    cases["Flowers102"] = ({}, {
        flowers + "102flowers.tgz": tar_bytes({f"jpg/image_{i:05d}.jpg": _jpeg(i)
                                               for i in range(1, 5)}, gz=True),
        flowers + "imagelabels.mat": labels, flowers + "setid.mat": setid},
        {"_file_dict": {"image": ("102flowers.tgz", None),
                        "label": ("imagelabels.mat", fab.md5(labels)),
                        "setid": ("setid.mat", fab.md5(setid))}})
    cases["Food101"] = ({}, {"http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz": tar_bytes({
        "food-101/meta/train.json": b'{"pizza": ["pizza/1", "pizza/2"], "ramen": ["ramen/9"]}',
        "food-101/meta/test.json": b'{"ramen": ["ramen/3"]}',
        **{f"food-101/images/{s}.jpg": _jpeg(k)
           for k, s in enumerate(["pizza/1", "pizza/2", "ramen/9", "ramen/3"])}}, gz=True)}, {})
    pets = "https://www.robots.ox.ac.uk/~vgg/data/pets/data/"
    cases["OxfordIIITPet"] = ({"target_types": ["category", "segmentation"]}, {
        pets + "images.tar.gz": tar_bytes({f"images/{n}.jpg": _jpeg(k) for k, n in
                                           enumerate(["Bengal_1", "pug_2"])}, gz=True),
        pets + "annotations.tar.gz": tar_bytes({
            "annotations/trainval.txt": b"Bengal_1 1 1 1\npug_2 2 2 1\n",
            "annotations/test.txt": b"pug_2 2 2 1\n",
            **{f"annotations/trimaps/{n}.png": image_bytes(k, mode="L")
               for k, n in enumerate(["Bengal_1", "pug_2"])}}, gz=True)}, {})
    cases["DTD"] = ({}, {"https://www.robots.ox.ac.uk/~vgg/data/dtd/download/dtd-r1.0.1.tar.gz":
                         tar_bytes({"dtd/labels/train1.txt": b"woven/w_1.jpg\nbanded/b_1.jpg\n",
                                    "dtd/images/woven/w_1.jpg": _jpeg(1),
                                    "dtd/images/banded/b_1.jpg": _jpeg(2)}, gz=True)}, {})
    air = "fgvc-aircraft-2013b/data/"
    cases["FGVCAircraft"] = ({"split": "test"}, {
        "https://www.robots.ox.ac.uk/~vgg/data/fgvc-aircraft/archives/fgvc-aircraft-2013b.tar.gz":
        tar_bytes({air + "variants.txt": b"707-320\nA300B4\n",
                   air + "images_variant_test.txt": b"0001 A300B4\n0002 707-320\n",
                   air + "images/0001.jpg": _jpeg(1), air + "images/0002.jpg": _jpeg(2)},
                  gz=True)}, {})
    cases["EuroSAT"] = ({}, {
        "https://huggingface.co/datasets/torchgeo/eurosat/resolve/"
        "c877bcd43f099cd0196738f714544e355477f3fd/EuroSAT.zip":
        zip_bytes({f"2750/{c}/{c}_{k}.jpg": _jpeg(k) for c in ("River", "Forest")
                   for k in range(2)})}, {})
    gtsrb = "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
    cases["GTSRB"] = ({"split": "test"}, {
        gtsrb + "GTSRB_Final_Test_Images.zip": zip_bytes({
            f"GTSRB/Final_Test/Images/{k:05d}.ppm": image_bytes(k, fmt="PPM") for k in range(2)}),
        gtsrb + "GTSRB_Final_Test_GT.zip": zip_bytes({
            "GT-final_test.csv": b"Filename;ClassId\n00000.ppm;4\n00001.ppm;0\n"})}, {})
    cases["GTSRB:train"] = ({}, {gtsrb + "GTSRB-Training_fixed.zip": zip_bytes({
        f"GTSRB/Training/{c:05d}/{k:05d}_00000.ppm": image_bytes(c + k, fmt="PPM")
        for c in range(3) for k in range(2)})}, {})
    cases["Country211"] = ({"split": "valid"}, {
        "https://openaipublic.azureedge.net/clip/data/country211.tgz": tar_bytes({
            f"country211/{s}/{c}/{k}.jpg": _jpeg(k) for s in ("train", "valid", "test")
            for c in ("AD", "FR") for k in range(2)}, gz=True)}, {})
    cases["SUN397"] = ({}, {"http://vision.princeton.edu/projects/2010/SUN/SUN397.tar.gz":
                            tar_bytes({"SUN397/ClassName.txt": b"/a/abbey\n/b/bakery/shop\n",
                                       "SUN397/a/abbey/sun_a.jpg": _jpeg(1),
                                       "SUN397/b/bakery/shop/sun_b.jpg": _jpeg(2)}, gz=True)}, {})
    cases["RenderedSST2"] = ({"split": "val"}, {
        "https://openaipublic.azureedge.net/clip/data/rendered-sst2.tgz": tar_bytes({
            f"rendered-sst2/{s}/{c}/{k}.png": image_bytes(k) for s in ("train", "valid", "test")
            for c in ("negative", "positive") for k in range(2)}, gz=True)}, {})
    cases["Imagenette"] = ({"size": "160px", "split": "val"}, {
        "https://s3.amazonaws.com/fast-ai-imageclas/imagenette2-160.tgz": tar_bytes({
            f"imagenette2-160/{s}/{w}/{k}.JPEG": _jpeg(k) for s in ("train", "val")
            for w in ("n01440764", "n03888257") for k in range(2)}, gz=True)}, {})
    cases["CLEVRClassification"] = ({"split": "val"}, {
        "https://dl.fbaipublicfiles.com/clevr/CLEVR_v1.0.zip": zip_bytes({
            "CLEVR_v1.0/images/val/CLEVR_val_000000.png": image_bytes(1),
            "CLEVR_v1.0/scenes/CLEVR_val_scenes.json":
                b'{"scenes": [{"image_filename": "CLEVR_val_000000.png", "objects": [1, 2]}]}'})},
        {})
    inner = {"caltech-101/101_ObjectCategories.tar.gz": tar_bytes({
        f"101_ObjectCategories/{c}/image_{k:04d}.jpg": _jpeg(k)
        for c in ("BACKGROUND_Google", "Faces", "ant") for k in (1, 2)}, gz=True),
        "caltech-101/Annotations.tar": tar_bytes({
            f"Annotations/{c}/annotation_{k:04d}.mat": _mat(obj_contour=np.eye(2) * k)
            for c in ("Faces_2", "ant") for k in (1, 2)})}
    cases["Caltech101"] = ({"target_type": "category"}, {
        "https://data.caltech.edu/records/mzrjq-6wc02/files/caltech-101.zip": zip_bytes(inner)},
        {})
    cases["Caltech256"] = ({}, {
        "https://data.caltech.edu/records/nyy15-4j048/files/256_ObjectCategories.tar": tar_bytes({
            f"256_ObjectCategories/{i:03d}.{c}/{i:03d}_{k:04d}.jpg": _jpeg(k)
            for i, c in ((1, "ak47"), (2, "bat")) for k in (1, 2)})}, {})
    frames = io.BytesIO()
    np.save(frames, np.random.default_rng(0).integers(0, 256, (20, 2, 6, 6)).astype(np.uint8))
    cases["MovingMNIST"] = ({"split": "test"}, {
        "http://www.cs.toronto.edu/~nitish/unsupervised_video/mnist_test_seq.npy":
        frames.getvalue()}, {})
    cases["CelebA"] = _celeba_case()
    if importlib.util.find_spec("h5py") is not None:
        cases["PCAM"] = _pcam_case()
    return cases


def _pcam_case():
    import h5py

    rng = np.random.default_rng(0)
    arrays = {"images": ("x", rng.integers(0, 256, (3, 96, 96, 3)).astype(np.uint8)),
              "targets": ("y", rng.integers(0, 2, (3, 1, 1, 1)).astype(np.uint8))}
    files = {}
    for kind, (name, file_id, md5) in TD.PCAM._FILES["val"].items():
        buf = io.BytesIO()
        with h5py.File(buf, "w") as f:
            f[arrays[kind][0]] = arrays[kind][1]
        files[file_id] = fab.gz(buf.getvalue())
        _KNOWN_MD5S[file_id] = md5
    return {"split": "val"}, files, {}


def _celeba_case():
    names = [f"{i:06d}.jpg" for i in range(1, 5)]

    def rows(values, header=""):
        return (header + "".join(f"{n} {' '.join(map(str, v))}\n"
                                 for n, v in zip(names, values))).encode()

    contents = {
        "img_align_celeba.zip": zip_bytes({f"img_align_celeba/{n}": _jpeg(k)
                                           for k, n in enumerate(names)}),
        "list_attr_celeba.txt": rows([[1, -1], [-1, -1], [1, 1], [-1, 1]], "4\nA B \n"),
        "identity_CelebA.txt": rows([[7], [3], [7], [1]]),
        "list_bbox_celeba.txt": rows([[1, 2, 3, 4]] * 4, "4\nimage_id x_1 y_1 width height\n"),
        "list_landmarks_align_celeba.txt": rows([list(range(10))] * 4, "4\n" + "x " * 10 + "\n"),
        "list_eval_partition.txt": rows([[0], [1], [0], [2]]),
    }
    file_list = [(fid, fab.md5(contents[name]), name) for fid, _, name in TD.CelebA.file_list]
    return ({"target_type": ["attr", "identity"]},
            {fid: contents[name] for fid, _, name in file_list}, {"file_list": file_list})



_KNOWN_MD5S = {
    "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/102flowers.tgz":
        "52808999861908f626f3c1f4e79d11fa",
    "http://data.vision.ee.ethz.ch/cvl/food-101.tar.gz": "85eeb15f3717b99a5da872d97d918f87",
    "https://www.robots.ox.ac.uk/~vgg/data/pets/data/images.tar.gz":
        "5c4f3ee8e5d25df40f4fd59a7f44e54c",
    "https://www.robots.ox.ac.uk/~vgg/data/pets/data/annotations.tar.gz":
        "95a8c909bbe2e81eed6a22bccdf3f68f",
    "https://www.robots.ox.ac.uk/~vgg/data/dtd/download/dtd-r1.0.1.tar.gz":
        "fff73e5086ae6bdbea199a49dfb8a4c1",
    "https://huggingface.co/datasets/torchgeo/eurosat/resolve/"
    "c877bcd43f099cd0196738f714544e355477f3fd/EuroSAT.zip": "c8fa014336c82ac7804f0398fcb19387",
    "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
    "GTSRB_Final_Test_Images.zip": "c7e4e6327067d32654124b0fe9e82185",
    "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
    "GTSRB_Final_Test_GT.zip": "fe31e9c9270bbcd7b84b7f21a9d9d9e5",
    "https://sid.erda.dk/public/archives/daaeac0d7ce1152aea9b61d9f1e19370/"
    "GTSRB-Training_fixed.zip": "513f3c79a4c5141765e10e952eaa2478",
    "https://openaipublic.azureedge.net/clip/data/country211.tgz":
        "84988d7644798601126c29e9877aab6a",
    "http://vision.princeton.edu/projects/2010/SUN/SUN397.tar.gz":
        "8ca2778205c41d23104230ba66911c7a",
    "https://openaipublic.azureedge.net/clip/data/rendered-sst2.tgz":
        "2384d08e9dcfa4bd55b324e610496ee5",
    "https://s3.amazonaws.com/fast-ai-imageclas/imagenette2-160.tgz":
        "e793b78cc4c9e9a4ccc0c1155377a412",
    "https://dl.fbaipublicfiles.com/clevr/CLEVR_v1.0.zip": "b11922020e72d0cd9154779b2d3d07d2",
    "https://data.caltech.edu/records/mzrjq-6wc02/files/caltech-101.zip":
        "3138e1922a9193bfa496528edbbc45d0",
    "https://data.caltech.edu/records/nyy15-4j048/files/256_ObjectCategories.tar":
        "67b4f42ca05d46448c6bb8ecd2220f6d",
    "http://www.cs.toronto.edu/~nitish/unsupervised_video/mnist_test_seq.npy":
        "be083ec986bfe91a449d63653c411eb2",
}


CASES = _cases()


@pytest.mark.parametrize("name", sorted(CASES))
def test_download_matches_torchvision(tmp_path, served, monkeypatch, name):
    kwargs, files, patches = CASES[name]
    name = name.split(":")[0]  # "GTSRB:train" is a second case of GTSRB
    table, md5s = {}, {}
    for i, (real, data) in enumerate(files.items()):
        path = f"/{i}/{os.path.basename(real)}"
        served.files[path] = data
        table[real] = served.url(path)
    seen = {"nt": [], "tv": []}
    for lib, key in ((D, "nt"), (TD, "tv")):
        cls = getattr(lib, name)
        for real, data in files.items():
            if real in _KNOWN_MD5S:
                md5s[_KNOWN_MD5S[real]] = fab.md5(data)
        # the helpers are called from the modules of the class and its bases
        for module in {sys.modules[c.__module__] for c in cls.__mro__
                       if c.__module__.split(".")[0] in ("numtorchvision", "torchvision")}:
            _redirect(monkeypatch, module, table, md5s, seen[key])
        for attr, value in patches.items():
            monkeypatch.setattr(cls, attr, value)
    a = getattr(D, name)(tmp_path / "nt", download=True, **kwargs)
    b = getattr(TD, name)(tmp_path / "tv", download=True, **kwargs)
    assert seen["nt"] == seen["tv"]
    nt_tree, tv_tree = file_tree(tmp_path / "nt"), file_tree(tmp_path / "tv")
    if name == "Caltech101":  # torchvision does not unpack the outlines' archive
        nt_tree = [p for p in nt_tree if not p.startswith("caltech101/Annotations/")]
    assert nt_tree == tv_tree, (sorted(set(nt_tree) - set(tv_tree)),
                                sorted(set(tv_tree) - set(nt_tree)))
    same_dataset(a, b, repr_too=False)
    if name == "Caltech101":  # here the outlines are there too
        contour = D.Caltech101(tmp_path / "nt", "annotation")[1][1]
        np.testing.assert_array_equal(contour, np.eye(2) * 2)
    hits = len(served.hits)
    getattr(D, name)(tmp_path / "nt", download=True, **kwargs)
    assert len(served.hits) == hits
