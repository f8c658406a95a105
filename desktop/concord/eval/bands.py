"""Temperature bands, as in the EVAL paper's regimes (positive / mixed / negative)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Band:
    name: str
    title: str
    low: float  # inclusive
    high: float  # exclusive, except the last band

    def holds(self, temperature: float) -> bool:
        return self.low <= temperature < self.high


POSITIVE_BELOW = 1.2
"""Temperatures under this are the positive regime (mostly deterministic, mostly good)."""
NEGATIVE_ABOVE = 1.6
"""Temperatures over this are the negative regime (mostly bad)."""

BANDS: tuple[Band, ...] = (
    Band("positive", f"T < {POSITIVE_BELOW:g}", 0.0, POSITIVE_BELOW),
    Band(
        "mixed",
        f"{POSITIVE_BELOW:g} <= T <= {NEGATIVE_ABOVE:g}",
        POSITIVE_BELOW,
        NEGATIVE_ABOVE + 1e-9,
    ),
    Band("negative", f"T > {NEGATIVE_ABOVE:g}", NEGATIVE_ABOVE + 1e-9, float("inf")),
)
OVERALL = "overall"


def band_of(temperature: float) -> str:
    for band in BANDS:
        if band.holds(temperature):
            return band.name
    raise ValueError(f"temperature {temperature} is in no band")


def band_titles() -> dict[str, str]:
    return {OVERALL: "all T", **{b.name: b.title for b in BANDS}}
