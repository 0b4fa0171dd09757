"""EuroSAT (RGB): Sentinel-2 patches in ``eurosat/2750/<class>/<file>.jpg``."""

from ._folders import _RootedImageFolder
from .folder import default_loader


class EuroSAT(_RootedImageFolder):
    """EuroSAT: 27,000 64x64 satellite images in 10 land-use classes (an ImageFolder).

    Args:
        root (str or pathlib.Path): folder holding ``eurosat``.
        transform, target_transform (callable, optional): for the image / the label.
        download (bool): fetch and unpack the archive (MD5-checked) if needed.
        loader (callable): reads an image from its path.
    """

    _URL = ("https://huggingface.co/datasets/torchgeo/eurosat/resolve/"
            "c877bcd43f099cd0196738f714544e355477f3fd/EuroSAT.zip")
    _MD5 = "c8fa014336c82ac7804f0398fcb19387"

    def __init__(self, root, transform=None, target_transform=None, download=False,
                 loader=default_loader):
        super().__init__(root, ("2750",), "eurosat", transform, target_transform, download,
                         loader)

    def _download_root(self):
        return str(self._base_folder)

    def download(self):
        """Download and unpack the archive unless the images are already there."""
        self._download()

