"""UCUM unit codes (the units FHIR Quantities carry): parse and convert.

A subset of the Unified Code for Units of Measure that covers clinical measurement: the
grammar in full (``.`` and ``/`` terms, parentheses, integer exponents, ``10*n``/``10^n``,
``{annotations}``, metric prefixes) over a table of the atoms a clinical record uses (SI base
units, litre, time, percent, mol and equivalents, international and enzyme units, mm[Hg] and
cm[H2O], inches and pounds). Substance (mol) is kept as its own dimension, so ``mmol/L`` and
``mg/dL`` do not convert into one another: that needs a molar mass, which UCUM does not
know. Arbitrary units (``[IU]``, ``[iU]``, ``U``) only convert to themselves.

`to_unit(value, "meq/L", "mmol/L")` -> 6.4; a code that is not UCUM, or two units of different
kinds, raises UcumError with the reason.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

# dimension order: length, time, mass, angle, temperature, charge, luminosity, substance,
# then arbitrary units that only convert to themselves
_DIMS = ("m", "s", "g", "rad", "K", "C", "cd", "mol", "[IU]", "U", "Cel", "[degF]")


class UcumError(ValueError):
    """A unit code that is not UCUM (or not one Concord knows), or units that do not
    convert."""


@dataclass(frozen=True)
class Unit:
    factor: float
    dims: tuple[int, ...]

    def times(self, other: Unit, power: int = 1) -> Unit:
        return Unit(
            self.factor * other.factor**power,
            tuple(a + power * b for a, b in zip(self.dims, other.dims, strict=True)),
        )

    def power(self, exponent: int) -> Unit:
        return Unit(self.factor**exponent, tuple(d * exponent for d in self.dims))


def _dim(**powers: int) -> tuple[int, ...]:
    return tuple(
        powers.get(name, 0)
        for name in ("m", "s", "g", "rad", "K", "C", "cd", "mol", "IU", "U", "Cel", "degF")
    )


_ONE = Unit(1.0, _dim())
_PASCAL = Unit(1000.0, _dim(g=1, m=-1, s=-2))
_ATOMS: dict[str, Unit] = {
    "m": Unit(1.0, _dim(m=1)),
    "s": Unit(1.0, _dim(s=1)),
    "g": Unit(1.0, _dim(g=1)),
    "rad": Unit(1.0, _dim(rad=1)),
    "K": Unit(1.0, _dim(K=1)),
    "C": Unit(1.0, _dim(C=1)),
    "cd": Unit(1.0, _dim(cd=1)),
    "mol": Unit(1.0, _dim(mol=1)),
    "eq": Unit(1.0, _dim(mol=1)),
    "osm": Unit(1.0, _dim(mol=1)),
    "kat": Unit(1.0, _dim(mol=1, s=-1)),
    "U": Unit(1.0, _dim(U=1)),
    "[IU]": Unit(1.0, _dim(IU=1)),
    "[iU]": Unit(1.0, _dim(IU=1)),
    "L": Unit(1e-3, _dim(m=3)),
    "l": Unit(1e-3, _dim(m=3)),
    "min": Unit(60.0, _dim(s=1)),
    "h": Unit(3600.0, _dim(s=1)),
    "d": Unit(86400.0, _dim(s=1)),
    "wk": Unit(604800.0, _dim(s=1)),
    "mo": Unit(2629800.0, _dim(s=1)),
    "a": Unit(31557600.0, _dim(s=1)),
    "%": Unit(0.01, _dim()),
    "[ppm]": Unit(1e-6, _dim()),
    "[ppb]": Unit(1e-9, _dim()),
    "10*": Unit(10.0, _dim()),
    "10^": Unit(10.0, _dim()),
    "Pa": _PASCAL,
    "bar": Unit(1e5 * _PASCAL.factor, _PASCAL.dims),
    "m[Hg]": Unit(133322.387415 * _PASCAL.factor, _PASCAL.dims),
    "m[H2O]": Unit(9806.65 * _PASCAL.factor, _PASCAL.dims),
    "[in_i]": Unit(0.0254, _dim(m=1)),
    "[ft_i]": Unit(0.3048, _dim(m=1)),
    "[lb_av]": Unit(453.59237, _dim(g=1)),
    "[oz_av]": Unit(28.349523125, _dim(g=1)),
    "Cel": Unit(1.0, _dim(Cel=1)),
    "[degF]": Unit(1.0, _dim(degF=1)),
    "Hz": Unit(1.0, _dim(s=-1)),
    "N": Unit(1000.0, _dim(g=1, m=1, s=-2)),
    "J": Unit(1000.0, _dim(g=1, m=2, s=-2)),
    "W": Unit(1000.0, _dim(g=1, m=2, s=-3)),
    "cal": Unit(4184.0, _dim(g=1, m=2, s=-2)),
    "Gy": Unit(1.0, _dim(m=2, s=-2)),
    "Sv": Unit(1.0, _dim(m=2, s=-2)),
    "[drp]": Unit(5e-8, _dim(m=3)),
}
_PREFIXES = {
    "Y": 1e24, "Z": 1e21, "E": 1e18, "P": 1e15, "T": 1e12, "G": 1e9, "M": 1e6, "k": 1e3,
    "h": 1e2, "da": 1e1, "d": 1e-1, "c": 1e-2, "m": 1e-3, "u": 1e-6, "n": 1e-9, "p": 1e-12,
    "f": 1e-15, "a": 1e-18, "z": 1e-21, "y": 1e-24,
}  # fmt: skip
_NO_PREFIX = {"10*", "10^", "%", "[ppm]", "[ppb]", "h", "d", "wk", "mo", "a", "min"}
_TOKEN = re.compile(r"\{[^{}]*\}|[./()]|[^./(){}]+")
_EXPONENT = re.compile(r"^(.*?)([+-]?\d+)$")


def _simple(symbol: str, code: str) -> Unit:
    """One unit symbol with its exponent: 'mg', 'cm2', '10*9', 'm-1', '[IU]'."""
    if symbol.isdigit():  # a bare factor, e.g. the 1 of "1/min"
        return Unit(float(symbol), _dim())
    for body, exponent in _split_exponent(symbol):
        unit = _atom(body)
        if unit is not None:
            return unit.power(exponent)
    raise UcumError(f"{code!r} is not a UCUM unit (unknown symbol {symbol!r})")


def _split_exponent(symbol: str) -> list[tuple[str, int]]:
    out = [(symbol, 1)]
    match = _EXPONENT.match(symbol)
    if (
        match
        and match.group(1)
        and not match.group(1).endswith(("*", "^"))
        or (match and match.group(1) in ("10*", "10^"))
    ):
        out.insert(0, (match.group(1), int(match.group(2))))
    return out


def _atom(body: str) -> Unit | None:
    if body in _ATOMS:
        return _ATOMS[body]
    for prefix in sorted(_PREFIXES, key=len, reverse=True):
        rest = body[len(prefix) :]
        if body.startswith(prefix) and rest in _ATOMS and rest not in _NO_PREFIX:
            atom = _ATOMS[rest]
            return Unit(atom.factor * _PREFIXES[prefix], atom.dims)
    return None


@lru_cache(maxsize=512)
def parse_ucum(code: str) -> Unit:
    """The unit a UCUM code denotes. Raises UcumError for anything else."""
    if not code or code != code.strip() or " " in code:
        raise UcumError(f"{code!r} is not a UCUM unit (empty or has spaces)")
    tokens = _TOKEN.findall(code)
    if "".join(tokens) != code:
        raise UcumError(f"{code!r} is not a UCUM unit (unbalanced braces)")
    position = 0

    def term() -> Unit:
        nonlocal position
        result = _ONE
        operator = "."
        if position < len(tokens) and tokens[position] == "/":
            operator = "/"
            position += 1
        while True:
            unit = component()
            result = result.times(unit, -1 if operator == "/" else 1)
            if position < len(tokens) and tokens[position] in "./":
                operator = tokens[position]
                position += 1
                continue
            return result

    def component() -> Unit:
        nonlocal position
        if position >= len(tokens):
            raise UcumError(f"{code!r} is not a UCUM unit (ends after an operator)")
        token = tokens[position]
        position += 1
        if token == "(":
            inner = term()
            if position >= len(tokens) or tokens[position] != ")":
                raise UcumError(f"{code!r} is not a UCUM unit (unbalanced parentheses)")
            position += 1
            return inner
        if token.startswith("{"):
            return _ONE  # an annotation alone is unity: {cells}, {INR}
        if token in ").":
            raise UcumError(f"{code!r} is not a UCUM unit (unexpected {token!r})")
        unit = _simple(token, code)
        if position < len(tokens) and tokens[position].startswith("{"):
            position += 1  # annotation after a unit: mL{total}
        return unit

    unit = term()
    if position != len(tokens):
        raise UcumError(f"{code!r} is not a UCUM unit (unexpected {tokens[position]!r})")
    return unit


def convertible(source: str, target: str) -> bool:
    try:
        return parse_ucum(source).dims == parse_ucum(target).dims
    except UcumError:
        return False


def to_unit(value: float, source: str, target: str) -> float:
    """`value` in UCUM unit `source` expressed in `target`. UcumError when either is not
    UCUM or they measure different things."""
    a, b = parse_ucum(source), parse_ucum(target)
    if a.dims != b.dims:
        raise UcumError(f"{source!r} cannot be converted to {target!r} (different kinds)")
    result = value * a.factor / b.factor
    return float(f"{result:.12g}") if math.isfinite(result) else result
