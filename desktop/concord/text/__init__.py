"""How Concord reads record text, below every reader of it: the layout of lines (prose that
wraps, table rows, list items) and numbers written as words. The screen and the verifier
each keep their own rules; what a line break or a spoken number *is* is decided here once."""
