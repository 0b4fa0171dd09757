import torch
import torchvision.models as models
for name in ["resnet18", "mobilenet_v3_small", "efficientnet_b0", "vit_b_16"]:
    torch.manual_seed(0)
    m = getattr(models, name)(weights=None, num_classes=10)
    n = sum(p.numel() for p in m.parameters()); nb = sum(b.numel() for b in m.buffers())
    print(name, n, nb, len(m.state_dict()), type(m).__name__)
    m2 = getattr(models, name)(weights=None, num_classes=10)
    sd = {k: v.clone() for k, v in m.state_dict().items()}
    print(m2.load_state_dict(sd))
    size = 224 if name == "vit_b_16" else 64
    x = torch.randn(2, 3, size, size)
    m.eval(); m2.eval()
    with torch.no_grad():
        y = m(x); y2 = m2(x)
    print(y.shape, torch.allclose(y, y2), round(y.std().item(), 2) > 0)
for name in ["resnet18", "mobilenet_v3_small"]:
    torch.manual_seed(0)
    m = getattr(models, name)(weights=None, num_classes=5)
    # identical weights in both libraries: deterministic init
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.05, 0.05, p.numel()).reshape(p.shape) * (1 + (i % 3)))
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    x = torch.linspace(-1, 1, 2 * 3 * 64 * 64).reshape(2, 3, 64, 64)
    t = torch.tensor([1, 3])
    m.train()
    for step in range(2):
        opt.zero_grad(); loss = torch.nn.functional.cross_entropy(m(x), t); loss.backward(); opt.step()
        print(name, step, f"{loss.item():.4f}")
print(models.list_models()[:5], len(models.list_models()) > 50)
print(models.get_model_weights("resnet18"), models.ResNet18_Weights.DEFAULT)
