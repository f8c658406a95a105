"""What the product specification fixes (the gate ids of the record screen, which keep their
ids), for the tests that hold the shipped resources to it."""

from __future__ import annotations

SPEC_GATES = frozenset(
    {
        "bleomycin_exposure",
        "hyperkalaemia",
        "thrombocytopenia",
        "raised_inr",
        "low_lvef",
        "recent_coronary_stent",
        "severe_aortic_stenosis",
        "hypoxaemia",
        "acute_lrti",
        "active_ischaemia",
    }
)
"""The ten gates of the record screen (the product specification)."""
