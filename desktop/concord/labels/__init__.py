"""Labels as data: how each was given (provenance), what they agree on (judge vs human,
between annotators, gold items), harm marks, and signed label packages that carry one
annotator's labels from an air-gapped workstation to a lead's."""
