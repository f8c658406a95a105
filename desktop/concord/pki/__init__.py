"""The installation's public-key infrastructure: its root certificate and each clinician's
signing key and certificate."""
