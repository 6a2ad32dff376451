"""`FormScreen`: the diagnosis of one run: which designed bug (the catalog's titles, or "not
sure yet") and the evidence, as free text.

Every change — a choice, a keystroke — is handed to the app's `keep` at once, which writes it
to the drafts; Esc only closes. The choices are the whole catalog in its own order, the
same for every run: the form cannot hint at what a run holds.

What is typed lands in the run the form names, however the terminal batches the keys:

- Esc followed at once by a key (`Esc 2 d` in one read, as a terminal over SSH sends it)
  reaches Textual as one Alt+key. The form reads it as the player meant it: it closes, and
  the key acts on the screen below (`2` shows run 02), both inside the app's own handling of
  that key (priority bindings), before the next key is read. No Alt+key types into the form.
- Esc, Tab and the closing/replaying keys act in that same handling too, so a key that
  follows in the same read goes where the form now is, not where it was.
- Text that reaches the form before a box has the focus (typed in the same read as the `d`
  that opened it) or while the choices have it goes into the evidence box, in order.

The evidence box opens with its cursor after the old text; Ctrl+A selects it all (the editor
idiom: Ctrl+A then Backspace empties it; Home goes to the line's start).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
from collections.abc import Callable
from string import ascii_lowercase

from textual import events
from textual.app import ComposeResult
from textual.binding import Binding, BindingsMap
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label, RadioSet, TextArea

from diagnose.tui.drafts import UNSURE, Draft
from diagnose.tui.keys import Spoken
from diagnose.tui.messages import KeysHandled
from diagnose.tui.widgets.choice_button import ChoiceButton
from scenarios.words import N_, say


def choices(lang: str, level: int = 1) -> list[tuple[str, str]]:
    """(value, title) for each break of the level's deck, then "not sure"."""
    import scenarios

    return ([(slug, brk.title[lang]) for slug, brk in scenarios.breaks(level).items()]
            + [(UNSURE, say(lang, "not sure yet"))])


Keep = Callable[[str, "str | None", str], None]
ALT = "alt+"
SETTLE_S = 2.0  # the longest a closing form waits for the keys read before its Esc
# Esc and a letter comes as alt+<letter> (alt+shift+<letter> for a capital); Esc and a digit
# as the character macOS's Option+digit types, which Textual's key table gives these
# sequences ("\x1b2" is "™"). Inside the form those ten characters are read as Esc+digit: typed
# into the box by hand they would close it (pasted, they are text like any other).
ESCAPED_DIGITS = dict(zip("¡™£¢∞§¶•ªº", "1234567890", strict=True))
ESCAPED = {**{ALT + c: c for c in ascii_lowercase},
           **{f"{ALT}shift+{c}": c.upper() for c in ascii_lowercase},
           **ESCAPED_DIGITS}


@functools.cache
def own_actions(widget: type) -> dict[str, str]:
    """The actions a widget class binds to keys, its own and its bases' (the subclass's win)."""
    actions: dict[str, str] = {}
    for cls in reversed(widget.__mro__):
        for key, binding in BindingsMap(cls.__dict__.get("BINDINGS", [])):
            actions[key] = binding.action
    return actions


class KeysInOrder:
    """A box whose own keys (Backspace, the arrows, Ctrl+A, Enter on a choice) act on its own
    queue, in the order they were typed. Textual runs a binding when its key has bubbled back
    to the app, after the box has typed the keys read with it: `ab⌫c` in one read would
    delete the c, and a box closed meanwhile would lose the key."""

    async def on_key(self, event: events.Key) -> None:
        action = own_actions(type(self)).get(event.key)
        if action is not None and not event.key.startswith(ALT):
            event.prevent_default()  # not TextArea's own handler, nor the app's later
            event.stop()
            await self.run_action(action)  # type: ignore[attr-defined]


class ChoiceSet(KeysInOrder, RadioSet):
    """The choices, their keys acting in order (`KeysInOrder`)."""


class EvidenceArea(KeysInOrder, TextArea):
    """The evidence box: Ctrl+A selects all (TextArea's own Ctrl+A goes to the line's start,
    which Home does too), its keys act in order (`KeysInOrder`), and no Alt+key types into it
    (the form closes on those)."""

    BINDINGS = [Binding("ctrl+a", "select_all", N_("select all"), show=False)]

    def check_consume_key(self, key: str, character: str | None = None) -> bool:
        """An Esc+digit is the form's binding, not a character typed (Textual hides a binding
        whose key the focused box would type)."""
        return character not in ESCAPED_DIGITS and super().check_consume_key(key, character)

    def on_key(self, event: events.Key) -> None:  # Textual calls each class's, this first
        if event.key.startswith(ALT):
            event.prevent_default()  # not typed; it bubbles to the form, which closes


class FormScreen(Spoken, ModalScreen[None]):
    BINDINGS = [
        Binding("escape", "close", N_("close"), priority=True),
        Binding("tab", "move(1)", N_("next"), show=False, priority=True),
        Binding("shift+tab", "move(-1)", N_("previous"), show=False, priority=True),
        Binding("ctrl+s", "app.save", N_("save")),
        *(Binding(escaped, f"close_then({key!r})", N_("close"), show=False, priority=True)
          for escaped, key in ESCAPED.items()),
    ]

    def __init__(self, run: str, answer: Draft, lang: str, note: str | None = None,
                 level: int = 1, keep: Keep | None = None) -> None:
        """`keep(run, choice, evidence)`: called on every change, in the order of the keys
        (a message would reach the app behind keys it has already read)."""
        super().__init__()
        self.run, self.answer, self.lang, self.note = run, answer, lang, note
        self.keep = keep or (lambda run, choice, evidence: None)
        self.level = level  # the deck whose breaks the form offers
        self.kept = (answer.choice, answer.evidence)  # the draft as last posted

    def compose(self) -> ComposeResult:
        with Vertical(id="form-box", classes="dialog"):
            yield Label(say(self.lang, "Diagnosis of run {run}", run=self.run),
                        classes="dialog-title")
            yield Label(say(self.lang, "Which designed bug does {run} show?", run=self.run))
            with ChoiceSet(id="choice"):
                for value, title in choices(self.lang, self.level):
                    yield ChoiceButton(title, value=value == self.answer.choice,
                                       id=f"choice-{value}")
            yield Label(say(self.lang, "Evidence: which panels show it, and their numbers"))
            yield EvidenceArea(self.answer.evidence, id="evidence", soft_wrap=True)
            if self.note:
                yield Label(self.note, classes="hint")
            yield Label(say(self.lang, "Tab moves · Esc closes (your draft is kept) · Ctrl+S "
                                       "saves the file"), classes="hint")

    def on_mount(self) -> None:
        evidence = self.query_one(EvidenceArea)
        evidence.move_cursor(evidence.document.end)  # a reopened box goes on after its text
        radio = self.query_one(RadioSet)
        self.set_focus(radio)  # at once: a key already read is forwarded to it
        # RadioSet puts the arrow keys on its first option: move them to the chosen one, so
        # that Enter on a reopened form keeps the answer instead of choosing the first break.
        chosen = radio.pressed_button
        for _ in range(len(radio.children) if chosen is not None else 0):
            if chosen.has_class("-selected"):  # ChoiceButton's pointer reads the same class
                break
            radio.action_next_button()

    def _choice(self) -> str | None:
        pressed = self.query_one(RadioSet).pressed_button
        return None if pressed is None else (pressed.id or "").removeprefix("choice-")

    def _changed(self) -> None:
        now = (self._choice(), self.query_one(EvidenceArea).text)
        if now != self.kept:
            self.kept = now
            self.keep(self.run, *now)

    def on_radio_set_changed(self, event: RadioSet.Changed) -> None:
        event.stop()
        self._changed()

    def on_text_area_changed(self, event: TextArea.Changed) -> None:
        event.stop()
        self._changed()

    def on_key(self, event: events.Key) -> None:
        """A key no box took: text the evidence box missed (see the docstring), or an Esc+key
        with no binding below (it closes the form)."""
        if event.key.startswith(ALT):
            event.stop()
            if self.is_current:
                self.dismiss()
        elif event.is_printable and event.character and event.key != "space":
            event.stop()
            evidence = self.query_one(EvidenceArea)
            self.set_focus(evidence)
            evidence.insert(event.character)  # a Changed follows: the draft is written

    def action_move(self, step: int) -> None:
        """Tab: the next box, now (a key read with it goes to that box)."""
        if step > 0:
            self.focus_next()
        else:
            self.focus_previous()

    async def settle(self) -> None:
        """Wait until every key read before now is handled by the form's boxes, then keep the
        draft as they left it. Textual forwards a key to the focused box's own queue; a key
        that closes the form acts at once (a priority binding), so the text typed just before
        it may not be in the box yet."""
        done = []
        for node in (self, *self.query("RadioSet, EvidenceArea")):
            done.append(asyncio.Event())
            node.post_message(KeysHandled(done[-1]))  # bubbles here behind the node's keys
        with contextlib.suppress(TimeoutError):  # a box that never answers: close anyway
            await asyncio.wait_for(asyncio.gather(*(d.wait() for d in done)), SETTLE_S)
        if self.query(EvidenceArea):
            self._changed()

    def on_keys_handled(self, message: KeysHandled) -> None:
        message.done.set()

    async def action_close(self) -> None:
        if self.is_current:
            await self.settle()
            self.dismiss()

    async def action_close_then(self, key: str) -> None:
        """Esc and `key` read as one Alt+key: close, then `key` on the screen below, as if
        Esc had been read alone first."""
        await self.action_close()
        below = self.app.screen.active_bindings.get(key)
        if below is not None and below.enabled:
            await self.app.run_action(below.binding.action, below.node)
