"""Site validation: the policy, the figures a validation reports, the signed acceptances and
the mode each run gets (clinical, demonstration or silent). See SPEC "Site validation"."""

from concord.site.acceptance import Acceptance, accept, acceptance_problems, acceptances
from concord.site.mode import (
    DEMONSTRATION_MODELS,
    DEMONSTRATION_NOTE,
    case_mode,
    site_note,
    site_status,
)
from concord.site.policy import SitePolicy, evaluate, load_policy, policy_path
from concord.site.store import SiteStore

__all__ = [
    "DEMONSTRATION_MODELS",
    "DEMONSTRATION_NOTE",
    "Acceptance",
    "SitePolicy",
    "SiteStore",
    "accept",
    "acceptance_problems",
    "acceptances",
    "case_mode",
    "evaluate",
    "load_policy",
    "policy_path",
    "site_note",
    "site_status",
]
