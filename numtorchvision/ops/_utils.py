"""Small helpers of the ops: RoI formats, dtype upcasts, the per-pair box geometry of the
IoU losses."""

import numtorch
from numtorch import nn


def _cat(tensors, dim=0):
    """``cat`` that returns a lone tensor as is (no copy)."""
    if len(tensors) == 1:
        return tensors[0]
    return numtorch.cat(tensors, dim)


def convert_boxes_to_roi_format(boxes):
    """A list of per-image ``(L_i, 4)`` boxes -> one ``(K, 5)`` tensor whose first column is
    the image index."""
    rois = _cat([b for b in boxes], dim=0)
    ids = _cat([numtorch.full_like(b[:, :1], i) for i, b in enumerate(boxes)], dim=0)
    return numtorch.cat([ids, rois], dim=1)


def check_roi_boxes_shape(boxes):
    """Check RoIs are a ``(K, 5)`` tensor or a list of ``(L, 4)`` tensors (AssertionError)."""
    if isinstance(boxes, (list, tuple)):
        for b in boxes:
            if b.size(1) != 4:
                raise AssertionError("The shape of the tensor in the boxes list is not correct "
                                     "as List[Tensor[L, 4]]")
    elif isinstance(boxes, numtorch.Tensor):
        if boxes.size(1) != 5:
            raise AssertionError("The boxes tensor shape is not correct as Tensor[K, 5]")
    else:
        raise AssertionError("boxes is expected to be a Tensor[L, 5] or a List[Tensor[K, 4]]")


def _legacy_type_name(t):
    """How torch's argument checks name a tensor's type ('torch.FloatTensor', ...)."""
    return "CPUBFloat16Type" if t.dtype == numtorch.bfloat16 else t.type()


def checked_rois(input, boxes, kernel="roi_align_forward_kernel"):
    """``boxes`` (a Tensor[K, 5] or a list of per-image Tensor[L, 4]) as the Tensor[K, 5] the
    RoI ops read, after torchvision's shape and dtype checks (``kernel`` names the op in the
    dtype error, as torchvision's C++ check does)."""
    check_roi_boxes_shape(boxes)
    rois = boxes
    if not isinstance(rois, numtorch.Tensor):
        rois = convert_boxes_to_roi_format(rois)
    if rois.size(1) != 5:
        raise RuntimeError("rois must have shape as Tensor[K, 5]")
    if input.dtype != rois.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'input' to have the same type as "
                           f"tensor for argument #2 'rois'; but type {_legacy_type_name(input)} "
                           f"does not equal {_legacy_type_name(rois)} (while checking arguments "
                           f"for {kernel})")
    return rois


def split_normalization_params(model, norm_classes=None):
    """Split the trainable parameters of ``model`` into those of normalisation layers and the
    rest (to give them different weight decay).

    Args:
        model (nn.Module): the model.
        norm_classes (list of types, optional): what counts as a norm layer; default batch,
            layer, group, instance and local response norms.

    Returns:
        (list, list): norm parameters, other parameters.
    """
    if not norm_classes:
        norm_classes = [nn.modules.batchnorm._BatchNorm, nn.LayerNorm, nn.GroupNorm,
                        nn.modules.instancenorm._InstanceNorm, nn.LocalResponseNorm]
    for cls in norm_classes:
        if not issubclass(cls, nn.Module):
            raise ValueError(f"Class {cls} is not a subclass of nn.Module.")
    classes = tuple(norm_classes)
    norm, other = [], []
    for module in model.modules():
        if next(module.children(), None):
            other.extend(p for p in module.parameters(recurse=False) if p.requires_grad)
        elif isinstance(module, classes):
            norm.extend(p for p in module.parameters() if p.requires_grad)
        else:
            other.extend(p for p in module.parameters() if p.requires_grad)
    return norm, other


def _upcast(t):
    # products of coordinates overflow small dtypes: float16 -> float32, int8/16 -> int32
    if t.is_floating_point():
        return t if t.dtype in (numtorch.float32, numtorch.float64) else t.float()
    return t if t.dtype in (numtorch.int32, numtorch.int64) else t.int()


def _upcast_non_float(t):
    return t if t.dtype in (numtorch.float32, numtorch.float64) else t.float()


def _loss_inter_union(boxes1, boxes2):
    """Intersection and union areas of matching pairs of ``xyxy`` boxes."""
    x1, y1, x2, y2 = boxes1.unbind(dim=-1)
    x1g, y1g, x2g, y2g = boxes2.unbind(dim=-1)
    xk1, yk1 = numtorch.max(x1, x1g), numtorch.max(y1, y1g)
    xk2, yk2 = numtorch.min(x2, x2g), numtorch.min(y2, y2g)
    overlap = (yk2 > yk1) & (xk2 > xk1)
    inter = numtorch.where(overlap, (xk2 - xk1) * (yk2 - yk1), numtorch.zeros_like(x1))
    union = (x2 - x1) * (y2 - y1) + (x2g - x1g) * (y2g - y1g) - inter
    return inter, union


def _reduce_loss(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean() if loss.numel() > 0 else 0.0 * loss.sum()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"Invalid Value for arg 'reduction': '{reduction} \n Supported reduction "
                     f"modes: 'none', 'mean', 'sum'")
