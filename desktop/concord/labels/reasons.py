"""The fixed reasons the desktop records for decisions it makes on a key press. Readers of
the label log use them to tell, in decisions recorded before provenance was kept, a bulk
accept from a judgement decided one by one, and a derived CF from an answer."""

from __future__ import annotations

# the reasons a decision records without words, and the rule: concord.domain.decision_reason
from concord.domain.decision_reason import ACCEPT_REASON as ACCEPT_REASON
from concord.domain.decision_reason import BLIND_REASON as BLIND_REASON
from concord.domain.decision_reason import LABEL_REASON as LABEL_REASON

REST_REASON = "accepted as shown (the rest of the item)"
BULK_REASON = "bulk accept: the {n} remaining optional judgement(s), not reviewed one by one"
CF_REASON = "derived from the sentence verdicts"


def legacy_bulk(reason: str) -> bool:
    """Was a decision with this reason a bulk accept (for decisions with no provenance)?"""
    return reason == REST_REASON or reason.startswith(BULK_REASON.split("{", 1)[0])
