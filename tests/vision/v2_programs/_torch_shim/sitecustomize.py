"""Lets the CPU torch wheel import torchvision 0.28 (its compiled ops do not load): imported
at start-up of the torch runs of tests/vision/test_v2_programs.py only."""
try:
    import torch

    _register_fake = torch.library.register_fake
    torch.library.register_fake = lambda *a, **k: (lambda f: f)
    try:
        import torchvision  # noqa: F401
    finally:
        torch.library.register_fake = _register_fake
except Exception:  # noqa: BLE001 - without torch the programs report it themselves
    pass
