"""The legacy launcher, ``python -m numtorch.distributed.launch`` (torch.distributed.launch).

Same options as :mod:`numtorch.distributed.run`; unless ``--use-env`` is given, each rank's
script also receives ``--local-rank=<LOCAL_RANK>`` as its first argument, as torch's did.
"""

import os
import sys
import warnings

from . import run as _run

__all__ = ["main", "parse_args"]


def parse_args(args=None):
    parser = _run.get_args_parser()
    parser.prog = "python -m numtorch.distributed.launch"
    parser.add_argument("--use-env", "--use_env", action="store_true",
                        help="pass LOCAL_RANK only in the environment, not as --local-rank")
    return parser.parse_args(args)


def main(args=None):
    warnings.warn("The module numtorch.distributed.launch is deprecated and going to be "
                  "removed in future. Migrate to numtorch.distributed.run", FutureWarning,
                  stacklevel=2)
    parsed = parse_args(args)
    if not parsed.use_env:
        os.environ["NUMTORCH_RUN_LOCAL_RANK_ARG"] = "1"
    sys.exit(_run.run(parsed))


if __name__ == "__main__":
    main()
