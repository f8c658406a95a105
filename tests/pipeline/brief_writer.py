"""A scripted 'agent' for tests: writes schema-valid briefs from the record lines it is shown.

It behaves like a diligent but literal clinician: each risk is the text of a record line that
contains one of the words it looks for. Words listed in `blind_spots[agent]` are never looked
for by that agent, which is how tests make an agent miss a finding on purpose.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence

from concord.llm.runtime import GenerationRequest

LINE = re.compile(r"^(L\d+): (.*)$", re.MULTILINE)
TITLE = re.compile(r"TASK FOR THE ([A-Z /&-]+)\n")
DEFAULT_WORDS = (
    "K+",
    "potassium",
    "eGFR",
    "stent",
    "clopidogrel",
    "ABVD",
    "bleomycin",
    "SpO2",
    "platelet",
    "INR",
    "EF",
    "stenosis",
    "pneumonia",
    "HbA1c",
    "Hb ",
)


class BriefWriter:
    def __init__(
        self,
        blind_spots: Mapping[str, Sequence[str]] | None = None,
        consult: Sequence[str] = ("cardiology", "renal"),
        operation: str = "Laparoscopic cholecystectomy",
    ) -> None:
        self.blind_spots = {k.lower(): tuple(v) for k, v in (blind_spots or {}).items()}
        self.consult = tuple(consult)
        self.operation = operation
        self.requests: list[GenerationRequest] = []

    def agent_of(self, request: GenerationRequest) -> str:
        match = TITLE.search(request.prompt)
        return match.group(1).strip().lower() if match else "?"

    def __call__(self, request: GenerationRequest) -> str:
        self.requests.append(request)
        schema = request.schema or {}
        props = schema.get("properties", {})
        if "operation" in props:
            return json.dumps({"operation": self.operation, "rationale": "gallstones"})
        if "pairs" in props:
            return json.dumps({"pairs": []})
        agent = self.agent_of(request)
        blind = next((v for k, v in self.blind_spots.items() if k in agent), ())
        words = [w for w in DEFAULT_WORDS if w not in blind]
        lines = [
            (lid, text)
            for lid, text in LINE.findall(request.prefix)
            if any(w.lower() in text.lower() for w in words)
            and not any(b.lower() in text.lower() for b in blind)
        ][:4]
        if not lines:
            lines = LINE.findall(request.prefix)[:1]
        tags = props["evidence"]["items"]["properties"]["tag"]["enum"]
        brief: dict[str, object] = {
            "evidence": [
                {"line": lid, "tag": tags[0], "comment": "relevant finding"} for lid, _ in lines
            ],
            "top_risks": [{"text": text[:120], "cites": [lid]} for lid, text in lines],
            "actions": [
                {"text": f"Review before surgery: {text[:80]}", "cites": [lid]}
                for lid, text in lines[:1]
            ],
            "triggers": [],
            "monitoring": [],
            "risk_scores": ["UNKNOWN"],
        }
        if "consult" in props:
            allowed = props["consult"]["items"]["enum"]
            brief["consult"] = [c for c in self.consult if c in allowed]
        return json.dumps(brief)
