import pytest

from concord.errors import ModelError
from concord.llm.chat_template import PLAIN, split_chat_template
from concord.llm.runtime import GenerationRequest, Runtime
from concord.llm.scripted import ScriptedRuntime

GEMMA_LIKE = (
    "{{ bos_token }}{% for message in messages %}<start_of_turn>{{ message['role'] }}\n"
    "{{ message['content'] }}<end_of_turn>\n{% endfor %}"
    "{% if add_generation_prompt %}<start_of_turn>model\n{% endif %}"
)


def test_scripted_runtime_replays_and_records() -> None:
    runtime = ScriptedRuntime(["one", "two"])
    assert isinstance(runtime, Runtime)
    first = runtime.generate(GenerationRequest(prefix="P", prompt="a"))
    second = runtime.generate(GenerationRequest(prefix="P", prompt="b"))
    assert (first.text, second.text) == ("one", "two")
    assert (first.prefix_reused, second.prefix_reused) == (False, True)
    assert [r.prompt for r in runtime.requests] == ["a", "b"]
    with pytest.raises(ModelError, match="no output left"):
        runtime.generate(GenerationRequest(prefix="P", prompt="c"))


def test_scripted_runtime_accepts_a_function() -> None:
    runtime = ScriptedRuntime(lambda request: request.prompt.upper())
    assert runtime.generate(GenerationRequest(prefix="", prompt="abc")).text == "ABC"
    runtime.close()
    with pytest.raises(ModelError, match="closed"):
        runtime.generate(GenerationRequest(prefix="", prompt="abc"))


def test_chat_template_splits_around_the_user_turn() -> None:
    split = split_chat_template(GEMMA_LIKE, bos_token="<bos>", eos_token="<eos>")
    assert split.head == "<start_of_turn>user\n"
    assert split.tail == "<end_of_turn>\n<start_of_turn>model\n"
    assert split.wrap("PREFIX", "PROMPT") == "<start_of_turn>user\nPREFIXPROMPT" + split.tail
    assert split_chat_template(None) == PLAIN


def test_broken_template_is_a_model_error() -> None:
    with pytest.raises(ModelError, match="chat template"):
        split_chat_template("{% for %}")
    with pytest.raises(ModelError, match="user turn"):
        split_chat_template("no messages here")
