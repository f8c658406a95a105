"""Migration 4: identity and integrity. Never edit once released; add a new migration instead.

users:      the confusable skeleton of the name (unique), the user's public key (Ed25519,
            base64) whose private half only the user's password unlocks, who enrolled them.
decisions:  the decider's role at the time and their signature over the decision.
signatures: the signer's certificate fingerprint, the signature it supersedes, and how many
            judgements were reviewed and not reviewed when it was signed.
"""

SQL = """
ALTER TABLE users ADD COLUMN skeleton TEXT;
ALTER TABLE users ADD COLUMN public_key TEXT;
ALTER TABLE users ADD COLUMN enrolled_by TEXT;
CREATE UNIQUE INDEX users_by_skeleton ON users (skeleton);

ALTER TABLE decisions ADD COLUMN role TEXT;
ALTER TABLE decisions ADD COLUMN signature TEXT NOT NULL DEFAULT '';

ALTER TABLE signatures ADD COLUMN certificate_sha256 TEXT NOT NULL DEFAULT '';
ALTER TABLE signatures ADD COLUMN supersedes INTEGER;
ALTER TABLE signatures ADD COLUMN reviewed INTEGER NOT NULL DEFAULT 0;
ALTER TABLE signatures ADD COLUMN not_reviewed INTEGER NOT NULL DEFAULT 0;
"""
