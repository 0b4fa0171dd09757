"""Train a small MLP on a synthetic spiral with numtorch's raw tensors and autograd.

Run ``python examples/train_small.py [--steps N] [--seed S]``; the code lives in
:mod:`numtorch.demo`, which ``python -m numtorch.demo`` runs too.
"""

from numtorch.demo.spiral import main

if __name__ == "__main__":
    main()
