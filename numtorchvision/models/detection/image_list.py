"""A padded batch of images that remembers each image's size before padding."""

__all__ = ["ImageList"]


class ImageList:
    """``tensors``: the ``(N, C, H, W)`` padded batch; ``image_sizes``: ``(h, w)`` of each
    image inside it."""

    def __init__(self, tensors, image_sizes):
        self.tensors = tensors
        self.image_sizes = image_sizes

    def to(self, device):
        return ImageList(self.tensors.to(device), self.image_sizes)
