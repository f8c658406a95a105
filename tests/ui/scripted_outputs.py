"""Valid scripted agent outputs for any record, built from each request's JSON schema.

`scripted_runtime()` answers every request the panel makes (surgeon, anaesthetist,
specialists, LLM match proposals) with JSON that fits the request's schema, and cites the
record lines that look clinical (numbers, gate terms), so briefs have real, verified
evidence (one item pointing at some of a line's words), and one uncited (unsupported)
bullet. Agents cannot quote: FUZZY and FAILED marks come only from imported evidence packs.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from typing import Any

from concord.llm.runtime import GenerationRequest
from concord.llm.scripted import ScriptedRuntime

_LINE = re.compile(r"^(L\d+): (.*)$", re.MULTILINE)
_CLINICAL = re.compile(
    r"bleomycin|abvd|potassium|k\+|platelet|inr|ejection|lvef|stent|stenosis|spo2|"
    r"pneumonia|infection|troponin|angina|diabet|insulin|copd|asthma|airway|mallampati|"
    r"creatinine|egfr|warfarin|clopidogrel|aspirin|anaemia|haemoglobin",
    re.IGNORECASE,
)


def _lines(request: GenerationRequest) -> dict[str, str]:
    return dict(_LINE.findall(request.prefix))


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


def brief_answer(request: GenerationRequest) -> dict[str, Any]:
    schema = request.schema or {}
    props = schema["properties"]
    lines = _lines(request)
    ids = _enum(props, "evidence", "items", "properties", "line")
    tags = _enum(props, "evidence", "items", "properties", "tag") or ["general"]
    salt = ",".join(tags)
    limit = props["evidence"].get("maxItems", 6)
    chosen = _pick(ids, lines, salt, max(1, min(limit, 6)))
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
        spec = props[section]
        count = min(count, spec.get("maxItems", count))
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

    gate_enum = (
        _enum(
            props["top_risks"]["items"]["properties"].get("gates", {}),
        )
        if "gates" in props["top_risks"]["items"]["properties"]
        else []
    )
    del gate_enum  # gates are optional: leave the gate screen to find them
    answer: dict[str, Any] = {
        "evidence": evidence,
        "top_risks": bullets("top_risks", 0, 3),
        "actions": bullets("actions", 1, 2),
        "triggers": bullets("triggers", 0, 1, {"threshold": "K+ >= 6.0 mmol/L"}),
        "monitoring": bullets("monitoring", 2, 1),
        "risk_scores": ["ASA 3"][: props["risk_scores"].get("maxItems", 1)],
    }
    if answer["actions"] and props["actions"].get("maxItems", 2) > len(answer["actions"]):
        answer["actions"].append({"text": "Optimise before theatre", "cites": []})  # unsupported
    if "consult" in props:
        consult = _enum(props["consult"], "items")
        answer["consult"] = consult[: min(2, props["consult"].get("maxItems", 2))]
    return answer


def answer_for(request: GenerationRequest) -> str:
    schema = request.schema or {}
    props = schema.get("properties", {})
    if "operation" in props:
        return json.dumps(
            {
                "operation": "Elective laparoscopic cholecystectomy",
                "rationale": "Most plausible from the record",
            }
        )
    if "pairs" in props:
        return json.dumps({"pairs": []})
    return json.dumps(brief_answer(request))


def scripted_runtime(delay: float = 0.0) -> ScriptedRuntime:
    """A runtime that answers every panel request validly; `delay` seconds per request
    stands in for a slow model (the UI must stay responsive meanwhile)."""

    def respond(request: GenerationRequest) -> str:
        if delay:
            time.sleep(delay)
        return answer_for(request)

    return ScriptedRuntime(respond)
