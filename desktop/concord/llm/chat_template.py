"""Split a model's own chat template into the text before and after one user turn.

The template (GGUF metadata `tokenizer.chat_template`) is rendered once with a sentinel as
the user message; the text before the sentinel is the head, the text after it the tail.
The full prompt is then `head + prefix + prompt + tail`, whatever the template.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from concord.errors import ModelError

SENTINEL = "\u2063CONCORD_USER_TURN\u2063"
PLAIN_TEMPLATE_TAIL = "\n"


@dataclass(frozen=True)
class TemplateSplit:
    head: str
    tail: str

    def wrap(self, prefix: str, prompt: str) -> str:
        return self.head + prefix + prompt + self.tail


PLAIN = TemplateSplit(head="", tail=PLAIN_TEMPLATE_TAIL)


def _raise_exception(message: str) -> None:
    raise ValueError(message)


def split_chat_template(
    template: str | None, *, bos_token: str = "", eos_token: str = "", subject: str = "model"
) -> TemplateSplit:
    """Render `template` around a sentinel user turn. The BOS text is left out of the head
    (the tokenizer adds BOS itself); no template gives a plain prompt."""
    if not template:
        return PLAIN
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    env = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True)
    context: dict[str, Any] = {
        "messages": [{"role": "user", "content": SENTINEL}],
        "add_generation_prompt": True,
        "bos_token": bos_token,
        "eos_token": eos_token,
        "raise_exception": _raise_exception,
    }
    try:
        rendered = env.from_string(template).render(**context)
    except Exception as exc:  # jinja2 raises many types; all mean the template is unusable
        raise ModelError(
            f"cannot render the model's chat template: {exc}", subject=subject
        ) from exc
    if rendered.count(SENTINEL) != 1:
        raise ModelError(
            "the model's chat template does not place the user turn once", subject=subject
        )
    head, tail = rendered.split(SENTINEL)
    if bos_token and head.startswith(bos_token):
        head = head[len(bos_token) :]
    return TemplateSplit(head=head, tail=tail)
