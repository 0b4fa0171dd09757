"""SBU Captioned Photos: the archive ``SBUCaptionedPhotoDataset.tar.gz`` (MD5-checked) holds
``dataset/SBU_captioned_photo_dataset_urls.txt`` and ``..._captions.txt`` (one line per
photo); the photos themselves are fetched from their Flickr URLs into ``root/dataset``, and
only those that arrived are items."""

import os

from ._listed import NOT_FOUND_OR_CORRUPT, require, transformed
from .folder import default_loader
from .utils import check_integrity, download_and_extract_archive, download_url
from .vision import VisionDataset


class SBU(VisionDataset):
    """SBU Captioned Photo: items are ``(image, caption)``.

    Args:
        root (str or pathlib.Path): folder holding the archive.
        transform, target_transform (callable, optional): for the image / the caption.
        download (bool): fetch the archive and the photos (True by default).
        loader (callable): reads an image from its path.
    """

    url = "https://www.cs.rice.edu/~vo9/sbucaptions/SBUCaptionedPhotoDataset.tar.gz"
    filename = "SBUCaptionedPhotoDataset.tar.gz"
    md5_checksum = "9aec147b3488753cf758b4d493422285"

    def __init__(self, root, transform=None, target_transform=None, download=True,
                 loader=default_loader):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.loader = loader
        if download:
            self.download()
        require(self._check_integrity(), NOT_FOUND_OR_CORRUPT,
                [(os.path.join(self.root, self.filename), self.md5_checksum)])
        self.photos, self.captions = [], []
        folder = os.path.join(self.root, "dataset")
        with open(os.path.join(folder, "SBU_captioned_photo_dataset_urls.txt")) as urls, \
                open(os.path.join(folder, "SBU_captioned_photo_dataset_captions.txt")) as caps:
            for url, caption in zip(urls, caps):
                photo = os.path.basename(url.rstrip())
                if os.path.exists(os.path.join(folder, photo)):
                    self.photos.append(photo)
                    self.captions.append(caption.rstrip())

    def __getitem__(self, index):
        image = self.loader(os.path.join(self.root, "dataset", self.photos[index]))
        target = self.captions[index]
        return transformed(self, image, target)

    def __len__(self):
        return len(self.captions)

    def _check_integrity(self):
        return check_integrity(os.path.join(self.root, self.filename), self.md5_checksum)

    def download(self):
        """Fetch the archive, then every photo it lists (photos that fail are skipped)."""
        if self._check_integrity():
            return
        download_and_extract_archive(self.url, self.root, self.root, self.filename,
                                     self.md5_checksum)
        folder = os.path.join(self.root, "dataset")
        with open(os.path.join(folder, "SBU_captioned_photo_dataset_urls.txt")) as urls:
            for url in urls:
                try:
                    download_url(url.rstrip(), folder)
                except OSError:
                    pass  # many Flickr photos are gone
