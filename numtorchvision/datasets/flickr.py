"""Flickr8k and Flickr30k captions.

Flickr8k reads the annotation page of the Flickr 8k data (an HTML table: a link whose text
is the photo's Flickr URL, then a list of its captions); the image is the one file in
``root`` named ``<photo id>_*.jpg``. Flickr30k reads ``results_20130124.token``
("<file>#<n>\\t<caption>" per line).
"""

import glob
import os
from collections import defaultdict
from html.parser import HTMLParser

from ._listed import transformed
from .folder import default_loader
from .vision import VisionDataset


class Flickr8kParser(HTMLParser):
    """Collects ``annotations``: {image path: [captions]} from the Flickr 8k HTML page."""

    def __init__(self, root):
        super().__init__()
        self.root = root
        self.annotations = {}
        # inside the captions table; the tag opened last; the photo captions go to
        self.in_table, self.current_tag, self.current_img = False, None, None

    # current_tag is the tag opened last; any closing tag clears it
    def handle_starttag(self, tag, attrs):
        self.current_tag = tag
        self.in_table = self.in_table or tag == "table"

    def handle_endtag(self, tag):
        self.current_tag = None
        self.in_table = self.in_table and tag != "table"

    def handle_data(self, data):
        if not self.in_table:
            return
        if data == "Image Not Found":
            # the link's photo is gone: the captions that follow belong to no file
            self.current_img = None
            return
        if self.current_tag == "a":
            self._new_photo(data)
        elif self.current_tag == "li" and self.current_img:
            self.annotations[self.current_img].append(data.strip())

    def _new_photo(self, link_text):
        # the link text is the photo's page, ".../<photo id>/"; its file is <photo id>_*.jpg
        pattern = os.path.join(self.root, link_text.split("/")[-2] + "_*.jpg")
        self.current_img = glob.glob(pattern)[0]
        self.annotations[self.current_img] = []


class _Captions(VisionDataset):
    def __init__(self, root, ann_file, transform, target_transform, loader):
        super().__init__(root, transform=transform, target_transform=target_transform)
        self.ann_file, self.loader = os.path.expanduser(ann_file), loader

    def _path(self, img_id):
        return img_id

    def __getitem__(self, index):
        img_id = self.ids[index]
        image, target = self.loader(self._path(img_id)), self.annotations[img_id]
        return transformed(self, image, target)

    def __len__(self):
        return len(self.ids)


class Flickr8k(_Captions):
    """Flickr8k: items are ``(image, list of captions)``, images sorted by path.

    Args:
        root (str or pathlib.Path): the image folder.
        ann_file (str): the annotation HTML page.
        transform, target_transform (callable, optional): for the image / the captions.
        loader (callable): reads an image from its path.
    """

    def __init__(self, root, ann_file, transform=None, target_transform=None,
                 loader=default_loader):
        super().__init__(root, ann_file, transform, target_transform, loader)
        parser = Flickr8kParser(self.root)
        with open(self.ann_file) as f:
            parser.feed(f.read())
        self.annotations = parser.annotations
        self.ids = sorted(self.annotations)


class Flickr30k(_Captions):
    """Flickr30k: items are ``(image, list of captions)``, images sorted by file name.

    Args:
        root (str or pathlib.Path): the image folder.
        ann_file (str): ``results_20130124.token``.
        transform, target_transform (callable, optional): for the image / the captions.
        loader (callable): reads an image from its path.
    """

    def __init__(self, root, ann_file, transform=None, target_transform=None,
                 loader=default_loader):
        super().__init__(root, ann_file, transform, target_transform, loader)
        self.annotations = defaultdict(list)
        with open(self.ann_file) as f:
            for line in f:
                key, caption = line.strip().split("\t")
                self.annotations[key[:-2]].append(caption)  # "<file>#<n>" -> "<file>"
        self.ids = sorted(self.annotations)

    def _path(self, img_id):
        return os.path.join(self.root, img_id)
