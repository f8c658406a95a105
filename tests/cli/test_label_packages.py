"""A team across air-gapped workstations, on the command line: two annotators, each on their
own installation, label a QA set blind (`astrid-decide SET_ID --blind`, no judge run yet),
write signed packages; a lead on a third installation trusts their roots, merges both, and
`concord agreement` reports kappa between them and against the lead's judge run. Tampered,
duplicate, untrusted and other-version packages are refused with one line each."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from concord.astrid.llm_judge import judge_items
from concord.astrid.load import load_items
from concord.astrid.sentences import split_sentences
from concord.astrid.store import AstridStore
from concord.llm.scripted import ScriptedRuntime
from concord.store import Repository
from tests.astrid.helpers import DEMO, rule_judge
from tests.identity import ADMIN_PASSWORD, PASSWORD

ITEMS = 5


def use_home(monkeypatch: pytest.MonkeyPatch, tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("CONCORD_HOME", str(home))
    return home


def installation(run, admin: str, user: str, qa_file: Path = DEMO) -> str:
    """A fresh installation: its admin, one annotator, the QA set imported; the set id."""
    assert run("users", "add", admin, "--role", "admin", password=ADMIN_PASSWORD).code == 0
    added = run(
        "users", "add", user, "--role", "annotator", "--admin", admin,
        password=PASSWORD, admin_password=ADMIN_PASSWORD,
    )  # fmt: skip
    assert added.code == 0, added.err
    imported = run("astrid-import", str(qa_file), "--user", user, "--json", password=PASSWORD)
    assert imported.code == 0, imported.err
    return str(imported.json()["set_id"])


def label(run, set_id: str, user: str, *, flip: int = 0) -> int:
    """Blind labels on the first ITEMS items; every `flip`-th one the other way."""
    n = 0
    for item in load_items(DEMO)[:ITEMS]:
        targets = [
            (f"astrid/{item.item_id}/cf/sentence/{s.index + 1}", "conversational")
            if s.text.endswith("?") or len(s.text) < 22
            else (f"astrid/{item.item_id}/cf/sentence/{s.index + 1}", "grounded")
            for s in split_sentences(item.answer)
        ]
        targets += [(f"astrid/{item.item_id}/cr", "relevant")]
        targets += [(f"astrid/{item.item_id}/ra", "attempts")]
        for target, value in targets:
            n += 1
            if flip and n % flip == 0:
                value = "ungrounded" if "sentence" in target else "irrelevant"
                if target.endswith("/ra"):
                    value = "refuses"
            done = run(
                "astrid-decide", set_id, "--target", target, "--override", value,
                "--blind", "--user", user, "--json", password=PASSWORD,
            )  # fmt: skip
            assert done.code == 0, done.err
            decision = done.json()["decision"]
            assert decision["blind"] and decision["original_value"] is None
            assert decision["case_id"] == set_id and decision["reason"] == "blind answer"
    return n


@pytest.fixture
def team(run, monkeypatch, tmp_path):
    """Two workstations with a package each, and the lead's installation (not trusting yet)."""
    out: dict[str, object] = {}
    for who, flip in (("alice", 0), ("bob", 3)):
        home = use_home(monkeypatch, tmp_path, who)
        set_id = installation(run, f"admin-{who}", who)
        out[f"{who}_labels"] = label(run, set_id, who, flip=flip)
        package = tmp_path / f"{who}.labels.json"
        packed = run("labels", "pack", "--out", str(package), "--user", who, "--json",
                     password=PASSWORD)  # fmt: skip
        assert packed.code == 0, packed.err
        assert packed.json()["labels"] == out[f"{who}_labels"]
        out[who] = package
        out[f"{who}_root"] = home / "pki" / "root" / "root-ca.pem"
        out["set_id"] = set_id
    out["lead_home"] = use_home(monkeypatch, tmp_path, "lead")
    assert installation(run, "admin-lead", "lee") == out["set_id"]  # same file, same id
    return out


def test_a_lead_merges_two_workstations_and_measures_agreement(run, team) -> None:
    refused = run("labels", "merge", str(team["alice"]), "--user", "lee", "--json",
                  password=PASSWORD)  # fmt: skip
    assert refused.code == 1
    [line] = [x for x in refused.err.splitlines() if x.strip()]
    assert "refused: signed by an installation this one does not trust" in line
    for who in ("alice", "bob"):
        trusted = run("labels", "trust", str(team[f"{who}_root"]), "--admin", "admin-lead",
                      "--name", f"{who}-ws", admin_password=ADMIN_PASSWORD)  # fmt: skip
        assert trusted.code == 0, trusted.err
    merged = run("labels", "merge", str(team["alice"]), str(team["bob"]), "--user", "lee",
                 "--json", password=PASSWORD)  # fmt: skip
    assert merged.code == 0, merged.err
    packages = merged.json()["packages"]
    assert [p["annotator"] for p in packages] == ["alice", "bob"]
    assert [p["merged"] for p in packages] == [team["alice_labels"], team["bob_labels"]]
    assert all(p["refused"] is None and p["rater"].startswith(p["annotator"] + "@")
               for p in packages)  # fmt: skip
    raters = [p["rater"] for p in packages]

    # the lead's judge runs after the labels were given (scripted runtime: no model here)
    items = load_items(DEMO)
    with Repository.open() as repo:
        run_ = list(judge_items(ScriptedRuntime(rule_judge()), items, str(team["set_id"])))[-1]
        assert run_.run is not None
        AstridStore(repo).save_run(run_.run, "lee")
    report = run("agreement", "--json").json()
    pair = next(
        r for r in report["human_vs_human"]
        if r["metric"] == "astrid_cf_sentence" and r["annotators"] == sorted(raters)
    )  # fmt: skip
    assert pair["n"] > 10 and pair["kappa"] is not None and len(pair["ci95"]) == 2
    assert pair["agreement"] < 1.0
    judged = [r for r in report["judge_vs_human"] if r["metric"] == "astrid_cf_sentence"]
    assert judged and all(r["blind"] for r in judged)  # blind labels, a later run
    assert set(judged[0]["raters"]) == set(raters)
    assert {r["rater"] for r in report["per_annotator"]} == set(raters)

    # the merged labels are exported with their provenance
    out = Path(str(team["alice"])).parent / "export.jsonl"
    assert run("export-labels", "--out", str(out), "--user", "lee", password=PASSWORD).code == 0
    lines = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    merged_lines = [x for x in lines if x["origin"].startswith("package:")]
    assert len(merged_lines) == team["alice_labels"] + team["bob_labels"]
    assert {x["rater"] for x in merged_lines} == set(raters)
    assert all(x["blind"] is True and x["bulk"] is False for x in merged_lines)
    assert all(x["set_sha256"] and x["seconds_on_item"] is None for x in merged_lines)


def test_tampered_duplicate_and_foreign_packages_are_refused(run, team, tmp_path) -> None:
    assert run("labels", "trust", str(team["alice_root"]), "--admin", "admin-lead",
               admin_password=ADMIN_PASSWORD).code == 0  # fmt: skip
    tampered = tmp_path / "tampered.json"
    document = json.loads(Path(str(team["alice"])).read_text(encoding="utf-8"))
    first = document["payload"]["labels"][0]["decision"]
    first["new_value"] = "ungrounded" if first["new_value"] != "ungrounded" else "grounded"
    tampered.write_text(json.dumps(document), encoding="utf-8")
    result = run("labels", "merge", str(tampered), "--user", "lee", password=PASSWORD)
    assert result.code == 1
    assert result.out.strip() == (
        f"{tampered}: refused: the package was changed after it was signed "
        "(its signature does not verify)"
    )
    ok = run("labels", "merge", str(team["alice"]), "--user", "lee", password=PASSWORD)
    assert ok.code == 0 and "merged" in ok.out
    again = run("labels", "merge", str(team["alice"]), "--user", "lee", password=PASSWORD)
    assert again.code == 1 and "refused: already merged on" in again.out
    copy = tmp_path / "copy.json"
    shutil.copy(str(team["alice"]), copy)
    document = json.loads(copy.read_text(encoding="utf-8"))
    copy.write_text(json.dumps(document, indent=2), encoding="utf-8")  # same content, re-saved
    resaved = run("labels", "merge", str(copy), "--user", "lee", password=PASSWORD)
    assert resaved.code == 1 and "refused: already merged on" in resaved.out
    untrusted = run("labels", "merge", str(team["bob"]), "--user", "lee", password=PASSWORD)
    assert untrusted.code == 1 and "does not trust" in untrusted.out


def test_a_package_for_another_version_of_the_set_is_refused(
    run, monkeypatch, tmp_path, team
) -> None:
    changed = tmp_path / "other" / DEMO.name
    changed.parent.mkdir()
    lines = DEMO.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    first["answer"] += " Keep using them."
    changed.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n", encoding="utf-8")
    home = use_home(monkeypatch, tmp_path, "carol")
    set_id = installation(run, "admin-carol", "carol", changed)
    done = run("astrid-decide", set_id, "--target", f"astrid/{first['id']}/cr", "--override",
               "relevant", "--blind", "--user", "carol", password=PASSWORD)  # fmt: skip
    assert done.code == 0, done.err
    package = tmp_path / "carol.json"
    assert run("labels", "pack", "--out", str(package), "--user", "carol",
               password=PASSWORD).code == 0  # fmt: skip
    monkeypatch.setenv("CONCORD_HOME", str(team["lead_home"]))
    assert run("labels", "trust", str(home / "pki" / "root" / "root-ca.pem"), "--admin",
               "admin-lead", admin_password=ADMIN_PASSWORD).code == 0  # fmt: skip
    refused = run("labels", "merge", str(package), "--user", "lee", password=PASSWORD)
    assert refused.code == 1
    assert f"refused: its labels are for another version of QA set '{DEMO.name}'" in refused.out


def test_astrid_decide_on_a_set_needs_a_value_and_a_real_verdict(run, monkeypatch, tmp_path):
    use_home(monkeypatch, tmp_path, "solo")
    set_id = installation(run, "admin-solo", "sam")
    accept = run("astrid-decide", set_id, "--target", "astrid/driving/cr", "--accept",
                 "--user", "sam", password=PASSWORD)  # fmt: skip
    assert accept.code == 1 and "no judge run to accept" in accept.err
    wrong = run("astrid-decide", set_id, "--target", "astrid/driving/cf/sentence/9",
                "--override", "grounded", "--user", "sam", password=PASSWORD)  # fmt: skip
    assert wrong.code == 1 and "no such sentence" in wrong.err
