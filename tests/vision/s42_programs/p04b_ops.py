import torch
import torchvision
from torchvision import ops
torch.manual_seed(0)
xy = torch.rand(20, 2) * 50
wh = torch.rand(20, 2) * 30 + 1
boxes = torch.cat([xy, xy + wh], 1)
scores = torch.rand(20)
idx = torch.randint(0, 3, (20,))
print(ops.box_iou(boxes[:3], boxes[3:6]))
print(ops.generalized_box_iou(boxes[:3], boxes[3:6]))
print(ops.distance_box_iou(boxes[:2], boxes[2:4]), ops.complete_box_iou(boxes[:2], boxes[2:4]))
print(ops.box_area(boxes[:4]), ops.box_convert(boxes[:2], "xyxy", "cxcywh"))
print(ops.clip_boxes_to_image(boxes[:3], (30, 30)), ops.remove_small_boxes(boxes, 10.0).tolist())
logits = torch.randn(6, 3, requires_grad=True); tgt = (torch.rand(6, 3) > 0.5).float()
for red in ["none", "mean", "sum"]:
    l = ops.sigmoid_focal_loss(logits, tgt, alpha=0.25, gamma=2, reduction=red)
    print(red, l.shape, round(l.sum().item(), 5))
ops.sigmoid_focal_loss(logits, tgt, reduction="sum").backward(); print(logits.grad[0])
print(ops.generalized_box_iou_loss(boxes[:3], boxes[3:6], reduction="mean"))
m = torch.zeros(3, 20, 20); m[0, 2:5, 3:9] = 1; m[1, 10:19, 0:4] = 1; m[2, 7, 7] = 1
print(ops.masks_to_boxes(m))
torch.manual_seed(1)
db = ops.DropBlock2d(0.3, 3); db.train()
x = torch.ones(2, 3, 8, 8)
print(db, db(x).sum().item(), ops.drop_block2d(x, 0.5, 3, training=False).sum().item())
sd = ops.StochasticDepth(0.5, "row"); torch.manual_seed(2)
print(sd, sd(torch.ones(4, 2)).tolist(), ops.stochastic_depth(torch.ones(4, 2), 0.5, "batch", training=False).sum())
print(ops.FrozenBatchNorm2d(4), ops.MLP(4, [8, 2]), ops.Conv2dNormActivation(3, 8, 3), ops.SqueezeExcitation(8, 2))
print(ops.box_iou(torch.zeros(0, 4), boxes[:2]).shape)
