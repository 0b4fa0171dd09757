"""The base class of numtorchvision's datasets and the (transform, target_transform) pair."""

import os

from numtorch.utils import data


class VisionDataset(data.Dataset):
    """A dataset of images rooted at ``root``, with optional transforms.

    Args:
        root (str or os.PathLike, optional): the dataset's directory (``~`` is expanded).
        transforms (callable, optional): takes and returns ``(image, target)``.
        transform (callable, optional): applied to the image only.
        target_transform (callable, optional): applied to the target only.

    Pass either ``transforms`` or the ``transform``/``target_transform`` pair, not both.
    """

    _repr_indent = 4

    def __init__(self, root=None, transforms=None, transform=None, target_transform=None):
        if isinstance(root, str):
            root = os.path.expanduser(root)
        self.root = root
        separate = transform is not None or target_transform is not None
        if transforms is not None and separate:
            raise ValueError("Only transforms or transform/target_transform can be passed as "
                             "argument")
        self.transform = transform
        self.target_transform = target_transform
        if separate:
            transforms = StandardTransform(transform, target_transform)
        self.transforms = transforms

    def __getitem__(self, index):
        raise NotImplementedError(f"{type(self).__name__} does not define __getitem__")

    def __len__(self):
        raise NotImplementedError(f"{type(self).__name__} does not define __len__")

    def __repr__(self):
        body = [f"Number of datapoints: {self.__len__()}"]
        if self.root is not None:
            body.append(f"Root location: {self.root}")
        body += self.extra_repr().splitlines()
        if getattr(self, "transforms", None) is not None:
            body += [repr(self.transforms)]
        pad = " " * self._repr_indent
        return "\n".join([f"Dataset {self.__class__.__name__}"] + [pad + line for line in body])

    def _format_transform_repr(self, transform, head):
        lines = repr(transform).splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def extra_repr(self):
        """Extra lines for ``repr`` (a subclass adds its split, classes, ...)."""
        return ""


class StandardTransform:
    """Apply ``transform`` to the input and ``target_transform`` to the target."""

    def __init__(self, transform=None, target_transform=None):
        self.transform = transform
        self.target_transform = target_transform

    def __call__(self, input, target):
        if self.transform is not None:
            input = self.transform(input)
        if self.target_transform is not None:
            target = self.target_transform(target)
        return input, target

    def _format_transform_repr(self, transform, head):
        lines = repr(transform).splitlines()
        return [f"{head}{lines[0]}"] + [" " * len(head) + line for line in lines[1:]]

    def __repr__(self):
        body = [self.__class__.__name__]
        if self.transform is not None:
            body += self._format_transform_repr(self.transform, "Transform: ")
        if self.target_transform is not None:
            body += self._format_transform_repr(self.target_transform, "Target transform: ")
        return "\n".join(body)
