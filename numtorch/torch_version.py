"""``torch.torch_version``: a version string that compares as a version.

``TorchVersion("2.13.0") >= "2.1"`` must be True although ``"2.13.0" >= "2.1"`` is False as
text, because programs gate features on ``torch.__version__``. Comparisons parse both sides
as PEP 440 versions (``1.0.dev1 < 1.0a1 < 1.0 < 1.0+local < 1.0.post1``); a tuple of ints
compares as the dotted string; when either side is not a version, two strings compare as
text.
"""

import re

__all__ = ["TorchVersion", "InvalidVersion"]


class InvalidVersion(ValueError):
    """A string that is not a PEP 440 version."""


_PATTERN = re.compile(
    r"""^\s*v?
    (?:(?P<epoch>\d+)!)?
    (?P<release>\d+(?:\.\d+)*)
    (?:[-_.]?(?P<pre_l>alpha|beta|preview|pre|rc|a|b|c)[-_.]?(?P<pre_n>\d+)?)?
    (?:-(?P<post_n1>\d+)|[-_.]?(?P<post_l>post|rev|r)[-_.]?(?P<post_n2>\d+)?)?
    (?:[-_.]?(?P<dev_l>dev)[-_.]?(?P<dev_n>\d+)?)?
    (?:\+(?P<local>[a-z0-9]+(?:[-_.][a-z0-9]+)*))?
    \s*$""",
    re.VERBOSE | re.IGNORECASE,
)
_PRE_NAMES = {"alpha": "a", "a": "a", "beta": "b", "b": "b", "c": "rc", "pre": "rc",
              "preview": "rc", "rc": "rc"}
_PRE_RANKS = {"a": 0, "b": 1, "rc": 2}


def version_key(text):
    """The sort key of the PEP 440 version ``text``.

    Raises:
        InvalidVersion: ``text`` is not a version.
    """
    m = _PATTERN.match(text)
    if m is None:
        raise InvalidVersion(f"Invalid version: {text!r}")
    release = [int(p) for p in m["release"].split(".")]
    while len(release) > 1 and release[-1] == 0:  # 1.0 == 1.0.0
        release.pop()
    # every part is a tuple led by an int rank, so parts of two versions always compare
    has_post = m["post_n1"] is not None or m["post_l"] is not None
    if m["pre_l"]:
        pre = (0, _PRE_RANKS[_PRE_NAMES[m["pre_l"].lower()]], int(m["pre_n"] or 0))
    elif m["dev_l"] and not has_post:
        pre = (-1,)  # 1.0.dev1 sorts before 1.0a1
    else:
        pre = (1,)
    post = (0, int(m["post_n1"] or m["post_n2"] or 0)) if has_post else (-1,)
    dev = (0, int(m["dev_n"] or 0)) if m["dev_l"] else (1,)
    if m["local"] is None:
        local = (-1,)
    else:  # numeric segments sort after alphanumeric ones
        local = (0, *((1, int(s), "") if s.isdigit() else (0, 0, s.lower())
                      for s in re.split(r"[-_.]", m["local"])))
    return int(m["epoch"] or 0), tuple(release), pre, post, dev, local


def _other_text(other):
    if isinstance(other, str):
        return str(other)
    if isinstance(other, tuple) and all(isinstance(p, int) for p in other):
        return ".".join(str(p) for p in other)
    return None


def _comparison(op):
    def compare(self, other):
        text = _other_text(other)
        if text is None:
            return NotImplemented
        try:
            return op(version_key(str(self)), version_key(text))
        except InvalidVersion:  # text order, and only against text
            return op(str(self), text) if isinstance(other, str) else NotImplemented

    return compare


class TorchVersion(str):
    """A ``str`` whose ``<``, ``<=``, ``==``, ``>``, ``>=`` compare versions.

    The other side may be a string or a tuple of ints (``(2, 1)`` means ``"2.1"``). Like
    torch's, ``!=`` is left to ``str``, so it compares the text.
    """

    __lt__ = _comparison(lambda a, b: a < b)
    __le__ = _comparison(lambda a, b: a <= b)
    __eq__ = _comparison(lambda a, b: a == b)
    __gt__ = _comparison(lambda a, b: a > b)
    __ge__ = _comparison(lambda a, b: a >= b)
    __hash__ = str.__hash__
