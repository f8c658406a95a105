"""FHIR R4 import: bundles and single resources, validated, rendered as readable text (one
document per resource) with the coded values kept for the record screen."""
