"""The resources a run is made with, loaded once: gates and lexicon (the record screen),
prompts, agent profiles and the scoring config, each with the content hash of its files.

Every case records those hashes (`ResourceVersions`) with the model's; a site acceptance
covers exactly one (model, versions) combination. Everything that screens, prompts or scores
takes its rules from one `Resources` object built here, never from the files directly, so a
candidate folder (`concord validate resources DIR`) is read exactly as the installed one.

A part's hash is SHA-256 over its files in path order, each as its path relative to the
part, a NUL, and the SHA-256 of its UTF-8 text; `part_files` gives that text, which the
store keeps (`resource_snapshots`) so a stored case is always read with the versions it was
made with.
"""

from __future__ import annotations

import hashlib
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from concord import paths
from concord.adjudication.config import ScoringConfig, load_scoring_config
from concord.agents.profiles import AgentProfile, assign_gates, load_profiles
from concord.agents.prompts import PromptSet
from concord.domain import RESOURCE_PARTS, Case, ResourceVersions
from concord.errors import InputError
from concord.screen.lexicon import Lexicon
from concord.screen.record_screen import RecordScreen
from concord.site.store import SiteStore
from concord.store import Repository

SCORING_FILE = "scoring.json"


def _part_paths(root: Path, part: str) -> list[tuple[str, Path]]:
    """(path relative to the part, file) for every file of `part` under `root`, in order."""
    if part == "scoring":
        file = root / SCORING_FILE
        return [(SCORING_FILE, file)] if file.is_file() else []
    folder = root / part
    if not folder.is_dir():
        return []
    found = [p for p in folder.rglob("*") if p.is_file() and not p.name.startswith(".")]
    return sorted(((p.relative_to(folder).as_posix(), p) for p in found), key=lambda x: x[0])


def part_files(root: Path, part: str) -> dict[str, str]:
    """The text of every file of `part` (relative path -> text); InputError when the part
    has no file or a file is not UTF-8 text."""
    if part not in RESOURCE_PARTS:
        raise InputError(f"unknown resource part {part!r} ({', '.join(RESOURCE_PARTS)})")
    files: dict[str, str] = {}
    for relative, path in _part_paths(root, part):
        try:
            files[relative] = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as exc:
            raise InputError(f"cannot read resource file: {exc}", subject=path) from exc
    if not files:
        where = root / (SCORING_FILE if part == "scoring" else part)
        raise InputError(f"no {part} files found", subject=where)
    return files


def files_sha256(files: Mapping[str, str]) -> str:
    """The content hash of one part (see the module doc)."""
    digest = hashlib.sha256()
    for relative in sorted(files):
        digest.update(relative.encode("utf-8") + b"\x00")
        digest.update(hashlib.sha256(files[relative].encode("utf-8")).digest())
    return digest.hexdigest()


def versions_of(root: Path) -> ResourceVersions:
    """The hash of every part under `root`, without loading anything."""
    return ResourceVersions(
        **{part: files_sha256(part_files(root, part)) for part in RESOURCE_PARTS}
    )


@dataclass(frozen=True)
class Resources:
    """Gates + lexicon (as the record screen), prompts, agent profiles and scoring, read
    from one folder, with their versions. Build with `load` (or `installed`)."""

    root: Path
    screen: RecordScreen
    profiles: Mapping[str, AgentProfile]
    """Each with the gates it owns, as the gate files state them."""
    prompts: PromptSet
    scoring: ScoringConfig
    versions: ResourceVersions

    @property
    def lexicon(self) -> Lexicon:
        """The screen's lexicon: item matching and the screen read the same terms."""
        return self.screen.lexicon

    @property
    def specialist_ids(self) -> tuple[str, ...]:
        return tuple(p.id for p in self.profiles.values() if p.role == "specialist")

    @property
    def gate_ids(self) -> tuple[str, ...]:
        return tuple(g.gate_id for g in self.screen.gates)

    @classmethod
    def load(cls, root: Path | None = None) -> Resources:
        """Every part from `root` (default: the installed `resources/`); a bad file raises
        InputError naming it. The hashes are of the files as they were read."""
        root = Path(root) if root is not None else paths.resources_dir()
        if not root.is_dir():
            raise InputError("resources folder does not exist", subject=root)
        versions = versions_of(root)
        screen = RecordScreen.load(root)
        return cls(
            root=root,
            screen=screen,
            profiles=assign_gates(load_profiles(root / "agents"), screen.owners()),
            prompts=PromptSet.load(root / "prompts"),
            scoring=load_scoring_config(root / SCORING_FILE),
            versions=versions,
        )

    @classmethod
    def installed(cls) -> Resources:
        """The installed resources, loaded once per process and folder (the record screen
        takes seconds to build): what the CLI, the app and the PDF use unless given one."""
        root = paths.resources_dir().resolve()
        cached = _LOADED.get(root)
        if cached is None or cached.versions != versions_of(root):
            cached = _LOADED[root] = cls.load(root)
        return cached

    def snapshot(self, part: str) -> dict[str, str]:
        """The files of one part as read (for the store)."""
        return part_files(self.root, part)


_LOADED: dict[Path, Resources] = {}


def materialise(snapshots: Mapping[str, Mapping[str, str]], folder: Path) -> Path:
    """Write stored part snapshots (part -> relative path -> text) as a resources folder
    under `folder` and return it: a stored version is loaded exactly as a folder is."""
    for part, files in snapshots.items():
        base = folder if part == "scoring" else folder / part
        for relative, text in files.items():
            target = (base / relative).resolve()
            if folder.resolve() not in target.parents:
                raise InputError(f"stored {part} file escapes its folder", subject=relative)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text, encoding="utf-8")
    return folder


def load_snapshots(snapshots: Mapping[str, Mapping[str, str]]) -> Resources:
    """A `Resources` from stored snapshots of every part."""
    missing = [p for p in RESOURCE_PARTS if p not in snapshots]
    if missing:
        raise InputError(f"stored resources lack {', '.join(missing)}")
    with tempfile.TemporaryDirectory(prefix="concord-resources-") as tmp:
        return Resources.load(materialise(snapshots, Path(tmp)))


_BY_VERSIONS: dict[ResourceVersions, Resources] = {}


def case_resources(repo: Repository, case: Case) -> Resources:
    """The resources a stored case was made with (its scoring, its gates' rules): the
    installed ones where its versions are those, else rebuilt from the snapshots the store
    keeps. A case run before versions were recorded is read with the installed ones."""
    installed = Resources.installed()
    versions = case.resources
    if versions is None or versions == installed.versions:
        return installed
    if versions not in _BY_VERSIONS:
        _BY_VERSIONS[versions] = load_snapshots(SiteStore(repo).snapshots(versions))
    return _BY_VERSIONS[versions]
