import torch
#%% angle wrapping with remainder
angles = torch.tensor([-7.0, -3.14159, 0.0, -0.0, 3.14159, 7.0, 10.0])
print(angles % (2 * 3.14159), torch.remainder(angles, 2.0), torch.fmod(angles, 2.0), angles.remainder(-2.0))
print(torch.arange(-6, 7, 2.0) % 3, torch.arange(-6, 7, 2.0).fmod(3))
#%% integer and mixed remainder
print(torch.arange(-5, 6) % 3, torch.arange(-5, 6) % -3, torch.tensor(-4) % torch.tensor(2.0), 5.5 % torch.tensor([2.0, -2.0]))
