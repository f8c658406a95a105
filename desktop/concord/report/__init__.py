"""Review records: PDF rendering, PAdES signing and verification.

Submodules are imported where they are used (`concord.report.pdf`, `.sign`, `.verify`);
the keys and certificates they use live in `concord.pki`.
"""
