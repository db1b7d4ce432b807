"""Small value classes without ``dataclasses``.

What ``@dataclass`` gives — construction by position or keyword with
defaults, equality by field values, a readable repr — for classes whose
fields are ``__slots__``. ``dataclasses`` imports ``inspect`` (and with it
``ast``, ``dis``, ``tokenize``): about 10 ms in every process that imports it,
which the hook path cannot afford. ``Value`` is mutable and unhashable like a
plain dataclass; ``FrozenValue`` is immutable and hashable like a frozen one.
(``tacit.events`` keeps its own keyword-only variant, which has per-class
default factories.)
"""

from __future__ import annotations

from operator import attrgetter


class Value:
    __slots__ = ()
    _defaults: dict = {}

    def __init__(self, *args, **kwargs):
        names = self.__slots__
        if not kwargs and len(args) == len(names):  # every field, in order: the common call
            for name, value in zip(names, args):
                object.__setattr__(self, name, value)
            return
        if len(args) > len(names):
            raise TypeError(f"{type(self).__name__}() takes {len(names)} arguments, got {len(args)}")
        values = dict(zip(names, args))
        for name, value in kwargs.items():
            if name not in names or name in values:
                raise TypeError(f"{type(self).__name__}() got an unexpected or repeated argument {name!r}")
            values[name] = value
        for name in names:
            if name not in values:
                if name not in self._defaults:
                    raise TypeError(f"{type(self).__name__}() missing required argument {name!r}")
                values[name] = self._defaults[name]
            object.__setattr__(self, name, values[name])

    def __init_subclass__(cls, **kwargs):
        super().__init_subclass__(**kwargs)
        if not cls.__slots__:
            return
        get = attrgetter(*cls.__slots__)  # a tuple for two or more fields
        cls._values = (lambda self: (get(self),)) if len(cls.__slots__) == 1 else (lambda self: get(self))

    def _values(self) -> tuple:
        """The field values, in order (set per class by ``__init_subclass__``)."""
        return ()

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    __hash__ = None  # mutable and compared by value, like a non-frozen dataclass

    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__slots__)
        return f"{type(self).__qualname__}({fields})"


class FrozenValue(Value):
    __slots__ = ()

    def __setattr__(self, name, value):
        raise AttributeError(f"cannot assign to field {name!r}: {type(self).__name__} is immutable")

    def __delattr__(self, name):
        raise AttributeError(f"cannot delete field {name!r}: {type(self).__name__} is immutable")

    def __hash__(self):
        return hash(self._values())
