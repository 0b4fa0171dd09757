"""``torch.utils.deterministic``: ``fill_uninitialized_memory`` (default True). While
``torch.use_deterministic_algorithms(True)`` is on and this flag is set, ``empty``,
``empty_like``, ``empty_strided``, ``new_empty*`` and the elements ``resize_`` adds hold NaN
(floating and complex types) or the type's largest value (integers, True for bool) instead of
whatever memory held, so results cannot depend on it."""

fill_uninitialized_memory = True
