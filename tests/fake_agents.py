"""The one fake brief writer for tests: schema-valid agent answers built from the record lines
each request shows, so briefs have real, verified evidence.

`BriefWriter` answers every request the panel makes (the surgeon's operation, each agent's
brief, LLM match proposals). Two ways of writing a brief:

- literal (the default): a diligent but literal clinician. Each risk is the text of a record
  line holding one of the words it looks for; words listed in `blind_spots[agent]` are never
  looked for by that agent, which is how tests make an agent miss a finding on purpose.
- full (`full=True`): fills every section the schema allows, citing the lines that look
  clinical (terms, then numbers) in an order that depends on the agent, with one evidence
  item pointing at some of a line's words and one uncited (unsupported) action. The desktop's
  tests use it for briefs with every kind of bullet.

Agents cannot quote: FUZZY and FAILED marks come only from imported evidence packs.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Mapping, Sequence
from typing import Any

from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime

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
_CLINICAL = re.compile(
    r"bleomycin|abvd|potassium|k\+|platelet|inr|ejection|lvef|stent|stenosis|spo2|"
    r"pneumonia|infection|troponin|angina|diabet|insulin|copd|asthma|airway|mallampati|"
    r"creatinine|egfr|warfarin|clopidogrel|aspirin|anaemia|haemoglobin",
    re.IGNORECASE,
)


class BriefWriter:
    def __init__(
        self,
        blind_spots: Mapping[str, Sequence[str]] | None = None,
        consult: Sequence[str] | None = ("cardiology", "renal"),
        operation: str = "Laparoscopic cholecystectomy",
        rationale: str = "gallstones",
        *,
        full: bool = False,
    ) -> None:
        self.blind_spots = {k.lower(): tuple(v) for k, v in (blind_spots or {}).items()}
        self.consult = None if consult is None else tuple(consult)  # None: the first two offered
        self.operation = operation
        self.rationale = rationale
        self.full = full
        self.requests: list[GenerationRequest] = []

    def agent_of(self, request: GenerationRequest) -> str:
        match = TITLE.search(request.prompt)
        return match.group(1).strip().lower() if match else "?"

    def __call__(self, request: GenerationRequest) -> str:
        self.requests.append(request)
        props = (request.schema or {}).get("properties", {})
        if "operation" in props:
            return json.dumps({"operation": self.operation, "rationale": self.rationale})
        if "pairs" in props:
            return json.dumps({"pairs": []})
        brief = self._full(request, props) if self.full else self._literal(request, props)
        if "consult" in props:
            allowed = _enum(props["consult"], "items")
            if self.consult is None:
                brief["consult"] = allowed[: min(2, props["consult"].get("maxItems", 2))]
            else:
                brief["consult"] = [c for c in self.consult if c in allowed]
        return json.dumps(brief)

    # -- literal ----------------------------------------------------------------------------

    def _literal(self, request: GenerationRequest, props: dict[str, Any]) -> dict[str, Any]:
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
        return {
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

    # -- full -------------------------------------------------------------------------------

    def _full(self, request: GenerationRequest, props: dict[str, Any]) -> dict[str, Any]:
        lines = dict(LINE.findall(request.prefix))
        ids = _enum(props, "evidence", "items", "properties", "line")
        tags = _enum(props, "evidence", "items", "properties", "tag") or ["general"]
        limit = props["evidence"].get("maxItems", 6)
        chosen = _pick(ids, lines, ",".join(tags), max(1, min(limit, 6)))
        evidence = []
        for n, line_id in enumerate(chosen):
            text = lines.get(line_id, "")[:120].strip() or "finding"
            entry: dict[str, Any] = {
                "line": line_id,
                "tag": tags[n % len(tags)],
                "comment": "relevant pre-operative finding",
            }
            if n == len(chosen) - 1 and len(text.split()) > 3:
                entry["words"] = [2, 3]  # part of the line: code quotes its whole clause
            evidence.append(entry)

        def bullets(section: str, start: int, count: int, extra: dict[str, Any] | None = None):
            count = min(count, props[section].get("maxItems", count))
            out = []
            for k in range(count):
                if not chosen:
                    break
                line_id = chosen[(start + k) % len(chosen)]
                text = lines.get(line_id, "finding")
                item: dict[str, Any] = {"text": f"{text}"[:110] or "finding", "cites": [line_id]}
                item.update(extra or {})
                out.append(item)
            return out

        answer: dict[str, Any] = {
            "evidence": evidence,
            "top_risks": bullets("top_risks", 0, 3),
            "actions": bullets("actions", 1, 2),
            "triggers": bullets("triggers", 0, 1, {"threshold": "K+ >= 6.0 mmol/L"}),
            "monitoring": bullets("monitoring", 2, 1),
            "risk_scores": ["ASA 3"][: props["risk_scores"].get("maxItems", 1)],
        }  # gates are optional: the gate screen finds them
        if answer["actions"] and props["actions"].get("maxItems", 2) > len(answer["actions"]):
            unsupported = {"text": "Optimise before theatre", "cites": []}
            answer["actions"].append(unsupported)
        return answer


def full_writer() -> BriefWriter:
    """The desktop tests' writer: every section filled, the first two specialists consulted."""
    return BriefWriter(
        consult=None,
        operation="Elective laparoscopic cholecystectomy",
        rationale="Most plausible from the record",
        full=True,
    )


def answer_for(request: GenerationRequest) -> str:
    return full_writer()(request)


def scripted_runtime(delay: float = 0.0) -> ScriptedRuntime:
    """A runtime that answers every panel request validly (`full_writer`); `delay` seconds per
    request stands in for a slow model (the UI must stay responsive meanwhile)."""
    writer = full_writer()

    def respond(request: GenerationRequest) -> str:
        if delay:
            time.sleep(delay)
        return writer(request)

    return ScriptedRuntime(respond)


def _enum(schema: dict[str, Any], *path: str) -> list[str]:
    node: Any = schema
    for key in path:
        node = node[key]
    return list(node.get("enum", []))


def _pick(ids: list[str], lines: dict[str, str], salt: str, n: int) -> list[str]:
    """Clinical lines first, in an order that depends on the agent (salt)."""
    terms = [i for i in ids if _CLINICAL.search(lines.get(i, ""))]
    numbers = [
        i
        for i in ids
        if i not in terms
        and re.search(r"\d", lines.get(i, ""))
        and not re.search(r"date|dob|hosp|nhs|tel", lines.get(i, ""), re.IGNORECASE)
    ]
    clinical = terms + numbers or list(ids)

    def key(line_id: str) -> str:
        return hashlib.sha256((salt + line_id).encode()).hexdigest()

    first = clinical[:2]  # every agent sees the first clinical lines: matches happen
    rest = sorted(clinical[2:], key=key)
    return (first + rest)[:n]
