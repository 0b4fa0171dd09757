"""Oxford 102 Flowers: ``flowers-102/jpg/image_NNNNN.jpg`` with labels and the split ids in
two MATLAB files."""

import os

from ._listed import NOT_FOUND_OR_CORRUPT, ListedImages, as_path, check_split, load_mat, require
from .folder import default_loader
from .utils import check_integrity, download_and_extract_archive, download_url

_CLASS_NAMES = [
    "pink primrose", "hard-leaved pocket orchid", "canterbury bells", "sweet pea",
    "english marigold", "tiger lily", "moon orchid", "bird of paradise", "monkshood",
    "globe thistle", "snapdragon", "colt's foot", "king protea", "spear thistle", "yellow iris",
    "globe-flower", "purple coneflower", "peruvian lily", "balloon flower",
    "giant white arum lily", "fire lily", "pincushion flower", "fritillary", "red ginger",
    "grape hyacinth", "corn poppy", "prince of wales feathers", "stemless gentian", "artichoke",
    "sweet william", "carnation", "garden phlox", "love in the mist", "mexican aster",
    "alpine sea holly", "ruby-lipped cattleya", "cape flower", "great masterwort", "siam tulip",
    "lenten rose", "barbeton daisy", "daffodil", "sword lily", "poinsettia", "bolero deep blue",
    "wallflower", "marigold", "buttercup", "oxeye daisy", "common dandelion", "petunia",
    "wild pansy", "primula", "sunflower", "pelargonium", "bishop of llandaff", "gaura",
    "geranium", "orange dahlia", "pink-yellow dahlia?", "cautleya spicata", "japanese anemone",
    "black-eyed susan", "silverbush", "californian poppy", "osteospermum", "spring crocus",
    "bearded iris", "windflower", "tree poppy", "gazania", "azalea", "water lily", "rose",
    "thorn apple", "morning glory", "passion flower", "lotus", "toad lily", "anthurium",
    "frangipani", "clematis", "hibiscus", "columbine", "desert-rose", "tree mallow", "magnolia",
    "cyclamen", "watercress", "canna lily", "hippeastrum", "bee balm", "ball moss", "foxglove",
    "bougainvillea", "camellia", "mallow", "mexican petunia", "bromelia", "blanket flower",
    "trumpet creeper", "blackberry lily",
]


class Flowers102(ListedImages):
    """Oxford 102 Flower (needs SciPy for the ``.mat`` label files).

    Args:
        root (str or pathlib.Path): folder holding ``flowers-102``.
        split (str): ``"train"`` (default), ``"val"`` or ``"test"``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch the images archive and the two ``.mat`` files (MD5-checked).
        loader (callable): reads an image from its path (default: RGB PIL image).

    Attributes:
        classes (list of str): the 102 flower names; ``_image_files`` (list of Path),
        ``_labels`` (list of int, 0-based).
    """

    _download_url_prefix = "https://www.robots.ox.ac.uk/~vgg/data/flowers/102/"
    _file_dict = {"image": ("102flowers.tgz", "52808999861908f626f3c1f4e79d11fa"),
                  "label": ("imagelabels.mat", "e0620be6f572b9609742df49c70aed4d"),
                  "setid": ("setid.mat", "a5357ecc9cb78c4bef273ce3793fc85c")}
    _splits_map = {"train": "trnid", "val": "valid", "test": "tstid"}
    classes = _CLASS_NAMES

    def __init__(self, root, split="train", transform=None, target_transform=None,
                 download=False, loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform,
                         loader=loader)
        self._split = check_split(split, ("train", "val", "test"))
        self._base_folder = as_path(self.root) / "flowers-102"
        self._images_folder = self._base_folder / "jpg"
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT, self._mat_files())
        ids = load_mat(self._base_folder / self._file_dict["setid"][0])
        labels = load_mat(self._base_folder / self._file_dict["label"][0])["labels"].ravel()
        for image_id in ids[self._splits_map[self._split]].ravel().tolist():
            self._labels.append(int(labels[image_id - 1]) - 1)
            self._image_files.append(self._images_folder / f"image_{image_id:05d}.jpg")

    def _mat_files(self):
        return [(os.path.join(self._base_folder, name), md5)
                for key, (name, md5) in self._file_dict.items() if key != "image"]

    def _check_integrity(self):
        return self._images_folder.is_dir() and all(
            check_integrity(path, md5) for path, md5 in self._mat_files())

    def download(self):
        if self._check_integrity():
            return
        name, md5 = self._file_dict["image"]
        download_and_extract_archive(self._download_url_prefix + name, str(self._base_folder),
                                     md5=md5)
        for key in ("label", "setid"):
            name, md5 = self._file_dict[key]
            download_url(self._download_url_prefix + name, str(self._base_folder), md5=md5)
