"""The skeleton of the R-CNN detectors: transform -> backbone -> RPN -> RoI heads ->
postprocess; losses in training, detections in evaluation."""

from collections import OrderedDict

import numtorch
from numtorch import nn

__all__ = ["GeneralizedRCNN"]


def _check_training_targets(targets):
    if targets is None:
        raise AssertionError("targets should not be none when in training mode")
    for t in targets:
        boxes = t["boxes"]
        if not isinstance(boxes, numtorch.Tensor):
            raise AssertionError(f"Expected target boxes to be of type Tensor, got "
                                 f"{type(boxes)}.")
        if not (len(boxes.shape) == 2 and boxes.shape[-1] == 4):
            raise AssertionError(f"Expected target boxes to be a tensor of shape [N, 4], got "
                                 f"{boxes.shape}.")


def _check_degenerate_boxes(targets):
    for i, t in enumerate(targets):
        boxes = t["boxes"]
        bad = (boxes[:, 2:] <= boxes[:, :2]).any(dim=1)
        if bad.any():
            first = boxes[numtorch.where(bad)[0][0]].tolist()
            raise AssertionError(f"All bounding boxes should have positive height and width. "
                                 f"Found invalid box {first} for target at index {i}.")


class GeneralizedRCNN(nn.Module):
    """Runs ``transform``, ``backbone``, ``rpn`` and ``roi_heads`` in turn.

    ``forward(images, targets=None)``: ``images`` is a list of ``(C, H, W)`` tensors; in
    training ``targets`` (one dict per image with ``boxes``, ``labels``, ...) is required
    and the result is the dict of losses; in evaluation it is one dict of detections per
    image, in the input images' coordinates.
    """

    def __init__(self, backbone, rpn, roi_heads, transform):
        super().__init__()
        for name, part in (("transform", transform), ("backbone", backbone), ("rpn", rpn),
                           ("roi_heads", roi_heads)):
            setattr(self, name, part)
        self._has_warned = False

    def eager_outputs(self, losses, detections):
        return losses if self.training else detections

    def forward(self, images, targets=None):
        if self.training:
            _check_training_targets(targets)
        original_sizes = []
        for img in images:
            size = img.shape[-2:]
            if len(size) != 2:
                raise AssertionError(f"expecting the last two dimensions of the Tensor to be "
                                     f"H and W instead got {img.shape[-2:]}")
            original_sizes.append((int(size[0]), int(size[1])))
        images, targets = self.transform(images, targets)
        if targets is not None:
            _check_degenerate_boxes(targets)
        features = self.backbone(images.tensors)
        if isinstance(features, numtorch.Tensor):
            features = OrderedDict([("0", features)])
        proposals, proposal_losses = self.rpn(images, features, targets)
        detections, detector_losses = self.roi_heads(features, proposals, images.image_sizes,
                                                     targets)
        detections = self.transform.postprocess(detections, images.image_sizes, original_sizes)
        # (TorchScript's (losses, detections) pair has no numtorch counterpart)
        return self.eager_outputs({**detector_losses, **proposal_losses}, detections)
