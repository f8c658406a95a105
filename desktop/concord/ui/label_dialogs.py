"""The two small dialogs a key opens while labelling, so that no key falls through.

* `ReasonDialog`: a key overrode a verdict the reviewer can see, and an override needs a
  reason. The reason box has the focus; while it is still empty a letter key (a, b, c …)
  takes the reason printed beside it, at once; anything else is typed (start free text with
  a capital letter or a space). Enter records a typed reason; with nothing typed it records
  nothing and says so. Esc cancels the override: nothing is stored. While it is open the
  item waits: no key reaches the queue.
* `HarmDialog`: H marks the answer, or the current sentence, unsafe: 1 minor, 2 moderate,
  3 major; W switches between the sentence and the whole answer; Esc cancels.

Both are window-modal and non-blocking (`open()`): the caller gets `chosen` and acts.
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, QObject, Qt, Signal
from PySide6.QtGui import QKeyEvent
from PySide6.QtWidgets import QCheckBox, QDialog, QLabel, QLineEdit, QVBoxLayout, QWidget

from concord.domain import Severity
from concord.labels.harm import SEVERITY_KEYS
from concord.ui import theme
from concord.ui.theme import plain_label

_ENTER = (Qt.Key.Key_Return, Qt.Key.Key_Enter)


class ReasonDialog(QDialog):
    chosen = Signal(str)  # the reason, once given

    def __init__(
        self, question: str, presets: list[tuple[str, str]], parent: QWidget | None = None
    ) -> None:
        super().__init__(parent)
        self.setObjectName("reasonDialog")
        self.setWindowTitle("Why do you override the judge?")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(560)
        self.presets = dict(presets)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label(question, bold=True))
        self.box = QLineEdit()
        self.box.setObjectName("reasonBox")
        keys = "–".join([presets[0][0], presets[-1][0]]) if presets else ""
        self.box.setPlaceholderText(
            f"{keys}: a reason below at once · or type your own (start with a capital "
            "letter) and press Enter · Esc cancels"
        )
        self.box.installEventFilter(self)
        layout.addWidget(self.box)
        for key, text in presets:
            row = plain_label(f"{key}   {text}")
            row.setObjectName(f"reasonPreset_{key}")
            row.setStyleSheet("font-family:monospace")
            layout.addWidget(row)
        self.note = plain_label("")
        self.note.setObjectName("reasonNote")
        self.note.setStyleSheet(f"color:{theme.RED}")
        layout.addWidget(self.note)
        self.reason: str | None = None
        self.box.setFocus()

    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        if watched is self.box and event.type() == QEvent.Type.KeyPress:
            assert isinstance(event, QKeyEvent)
            if event.key() in _ENTER:
                self._typed()
                return True
            text = event.text()
            plain = event.modifiers() in (
                Qt.KeyboardModifier.NoModifier,
                Qt.KeyboardModifier.KeypadModifier,
            )
            if plain and not self.box.text() and text in self.presets:
                self._give(self.presets[text])
                return True
        return super().eventFilter(watched, event)

    def keyPressEvent(self, event: QKeyEvent) -> None:
        if event.key() in _ENTER:  # never the dialog's default button
            self._typed()
            return
        super().keyPressEvent(event)

    def _typed(self) -> None:
        text = " ".join(self.box.text().split())
        if not text:
            self.note.setText(
                "Nothing is recorded without a reason: press a letter for a reason above, "
                "type one, or Esc to cancel the override."
            )
            return
        self._give(text)

    def _give(self, reason: str) -> None:
        self.reason = reason
        self.chosen.emit(reason)
        self.accept()


class HarmDialog(QDialog):
    chosen = Signal(object, bool)  # Severity, whole answer

    def __init__(self, what: str, *, sentence: bool, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setObjectName("harmDialog")
        self.setWindowTitle("Mark unsafe")
        self.setWindowModality(Qt.WindowModality.WindowModal)
        self.setMinimumWidth(520)
        layout = QVBoxLayout(self)
        layout.addWidget(plain_label("Could this answer harm the patient?", bold=True))
        self.what = QLabel(what)
        self.what.setTextFormat(Qt.TextFormat.PlainText)
        self.what.setWordWrap(True)
        layout.addWidget(self.what)
        self.whole = QCheckBox("The whole answer, not only this sentence (W)")
        self.whole.setObjectName("harmWhole")
        self.whole.setChecked(not sentence)
        self.whole.setEnabled(sentence)
        self.whole.setFocusPolicy(Qt.FocusPolicy.NoFocus)
        layout.addWidget(self.whole)
        keys = " · ".join(f"{k} {s.value}" for k, s in SEVERITY_KEYS.items())
        layout.addWidget(plain_label(f"Severity: {keys} · Esc cancels"))
        self.result_severity: Severity | None = None
        self.setFocus()

    def keyPressEvent(self, event: QKeyEvent) -> None:
        text = event.text().lower()
        if text in SEVERITY_KEYS:
            self.result_severity = SEVERITY_KEYS[text]
            self.chosen.emit(self.result_severity, self.whole.isChecked())
            self.accept()
            return
        if text == "w" and self.whole.isEnabled():
            self.whole.setChecked(not self.whole.isChecked())
            return
        super().keyPressEvent(event)
