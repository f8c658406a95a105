"""How Concord reads record text, below every reader of it: which characters a reader does not
tell apart (`characters`), the context words a clinician can edit (`context_file`), the
layout of lines (prose that wraps, table rows, list items) and numbers written as words. The
screen and the verifier each keep their own rules; what a character, a cue word, a line
break or a spoken number *is* is decided here once."""
