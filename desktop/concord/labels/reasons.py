"""The fixed reasons the desktop records for decisions it makes on a key press. Readers of
the label log use them to tell, in decisions recorded before provenance was kept, a bulk
accept from a judgement decided one by one, and a derived CF from an answer."""

from __future__ import annotations

from concord.review import ACCEPT_REASON as ACCEPT_REASON  # the rule is review's

REST_REASON = "accepted as shown (the rest of the item)"
BULK_REASON = "bulk accept: the {n} remaining optional judgement(s), not reviewed one by one"
BLIND_REASON = "blind answer"
LABEL_REASON = "labelled without a judge run"
CF_REASON = "derived from the sentence verdicts"


def legacy_bulk(reason: str) -> bool:
    """Was a decision with this reason a bulk accept (for decisions with no provenance)?"""
    return reason == REST_REASON or reason.startswith(BULK_REASON.split("{", 1)[0])
