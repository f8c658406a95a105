"""Who may do what: the closed set of user roles."""

from __future__ import annotations

from enum import StrEnum


class UserRole(StrEnum):
    """Clinicians decide the judgements required before signing and sign; annotators record
    labels (kept and exported as labels, never counted towards a clinical sign-off); admins
    manage users and hold the installation root key."""

    CLINICIAN = "clinician"
    ANNOTATOR = "annotator"
    ADMIN = "admin"
