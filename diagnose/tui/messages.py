"""The messages the app's parts send each other: small dataclasses, no behaviour.

The training worker posts the first three from its thread (`post_message` is thread-safe);
the panels and the form post the others. Records themselves travel through `RunStore`, not
as messages: the screen redraws on a timer, not on every step.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from textual.message import Message

from diagnose.workspace import Workspace


@dataclass
class TrainingFinished(Message):
    """The scenario is trained and written: from now on the app reads `workspace`."""

    workspace: Workspace


@dataclass
class TrainingFailed(Message):
    """Training stopped with a problem the student can act on (one line)."""

    reason: str


@dataclass
class Redealt(Message):
    """The runs could not be told apart and are being trained again with fresh seeds."""

    note: str


@dataclass
class PanelChosen(Message):
    """A panel was clicked: open its detail view."""

    number: int



@dataclass
class KeysHandled(Message):
    """Posted behind the keys already forwarded to a form's widget: when it reaches the form,
    those keys are handled (`FormScreen.settle`)."""

    done: asyncio.Event
