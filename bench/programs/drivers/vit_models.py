"""A driver for lucidrains/vit-pytorch (its examples/ holds only a Kaggle notebook): builds
several of its models at small sizes from one seed, runs forward and backward on a seeded batch
and a few Adam steps, printing a parameter checksum, the loss and the gradient norm, so torch
and numtorch can be compared line by line. The models' code is the checkout's, unmodified
(``sys.path`` gets its root from ``VIT_PYTORCH``).

    python vit_models.py [--steps 3] [--only ViT,CaiT]
"""
import argparse
import os
import sys

sys.path.insert(0, os.environ.get("VIT_PYTORCH", "/work/ext/vit-pytorch"))

import torch
import torch.nn.functional as F


def _models():
    from vit_pytorch import SimpleViT, ViT
    from vit_pytorch.cait import CaiT
    from vit_pytorch.cct import CCT
    from vit_pytorch.cross_vit import CrossViT
    from vit_pytorch.cvt import CvT
    from vit_pytorch.deepvit import DeepViT
    from vit_pytorch.levit import LeViT
    from vit_pytorch.max_vit import MaxViT
    from vit_pytorch.mobile_vit import MobileViT
    from vit_pytorch.nest import NesT
    from vit_pytorch.pit import PiT
    from vit_pytorch.t2t import T2TViT
    from vit_pytorch.vit_for_small_dataset import ViT as SmallDataViT
    from vit_pytorch.xcit import XCiT

    common = {"num_classes": 10, "dim": 64, "depth": 2, "heads": 4, "mlp_dim": 128}
    return {
        "ViT": lambda: ViT(image_size=32, patch_size=8, dropout=0.1, emb_dropout=0.1, **common),
        "SimpleViT": lambda: SimpleViT(image_size=32, patch_size=8, **common),
        "CaiT": lambda: CaiT(image_size=32, patch_size=8, cls_depth=1, dropout=0.1,
                             layer_dropout=0.05, **common),
        "DeepViT": lambda: DeepViT(image_size=32, patch_size=8, **common),
        "SmallDataViT": lambda: SmallDataViT(image_size=32, patch_size=8, **common),
        "PiT": lambda: PiT(image_size=32, patch_size=4, num_classes=10, dim=32, depth=(1, 1, 1),
                           heads=2, mlp_dim=64),
        "T2TViT": lambda: T2TViT(image_size=32, num_classes=10, dim=64, depth=2, heads=4,
                                 mlp_dim=128, t2t_layers=((7, 4), (3, 2))),
        "XCiT": lambda: XCiT(image_size=32, patch_size=8, cls_depth=1, **common),
        "CrossViT": lambda: CrossViT(image_size=32, num_classes=10, sm_dim=32, lg_dim=64,
                                     sm_patch_size=4, sm_enc_heads=2, sm_enc_mlp_dim=64,
                                     lg_patch_size=8, lg_enc_depth=1, lg_enc_heads=2,
                                     lg_enc_mlp_dim=64, cross_attn_depth=1, cross_attn_heads=2,
                                     depth=1),
        "LeViT": lambda: LeViT(image_size=32, num_classes=10, stages=2, dim=(32, 64),
                               depth=1, heads=(2, 4), mlp_mult=2),
        "CvT": lambda: CvT(num_classes=10, s1_emb_dim=16, s2_emb_dim=32, s3_emb_dim=64,
                           s3_depth=1, s3_heads=2),
        "NesT": lambda: NesT(image_size=32, patch_size=4, num_classes=10, dim=32, heads=2,
                             num_hierarchies=2, block_repeats=(1, 1)),
        # its stem takes channels[2] twice: the README's list repeats that entry
        "MobileViT": lambda: MobileViT(image_size=(64, 64), dims=[32, 32, 32],
                                       channels=[8, 16, 24, 24, 32, 32, 48, 48, 64, 64, 128],
                                       num_classes=10),
        "MaxViT": lambda: MaxViT(num_classes=10, dim=32, depth=(1, 1), dim_conv_stem=16,
                                 window_size=4, dropout=0.1),
        "CCT": lambda: CCT(img_size=(32, 32), embedding_dim=64, n_conv_layers=2, kernel_size=3,
                           stride=1, padding=1, pooling_kernel_size=3, pooling_stride=2,
                           pooling_padding=1, num_layers=2, num_heads=4, mlp_ratio=2.,
                           num_classes=10, positional_embedding="learnable"),
    }


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=3)
    ap.add_argument("--only", default="")
    args = ap.parse_args()
    models = _models()
    for name in (args.only.split(",") if args.only else models):
        torch.manual_seed(0)
        model = models[name]()
        size = 64 if name == "MobileViT" else 32
        images = torch.randn(8, 3, size, size)
        labels = torch.randint(0, 10, (8,))
        check = sum(p.detach().double().sum().item() for p in model.parameters())
        print(f"{name} params {sum(p.numel() for p in model.parameters())} sum {check:.6f}")
        opt = torch.optim.Adam(model.parameters(), lr=1e-3)
        for step in range(args.steps):
            loss = F.cross_entropy(model(images), labels)
            opt.zero_grad()
            loss.backward()
            norm = torch.nn.utils.clip_grad_norm_(model.parameters(), 1e9)
            opt.step()
            print(f"{name} step {step} loss {loss.item():.6f} grad {norm.item():.6f}")
        model.eval()
        with torch.no_grad():
            print(f"{name} eval {model(images).double().sum().item():.6f}")


if __name__ == "__main__":
    main()
