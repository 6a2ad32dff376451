"""`ChoiceButton`: a radio button whose state is a glyph, `(•)` chosen and `( )` not.

Textual's RadioButton draws `▐●▌` for every option and tells the chosen one by colour alone,
which a monochrome terminal or `NO_COLOR` loses; the option under the arrow keys is told by a
background colour too. This one draws both in the text itself, `›` before the option the keys
are on and the state glyph after it, through the public `render`; the rest is RadioButton's.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton

CHOSEN, NOT_CHOSEN = "(•)", "( )"
POINTER = "›"  # the option the arrow keys are on: RadioSet marks it with its `-selected` class


class ChoiceButton(RadioButton):
    def render(self) -> Content:
        label = self.label.stylize_before(self.get_visual_style("toggle--label"))
        glyph = Content.styled(CHOSEN, "bold") if self.value else Content(NOT_CHOSEN)
        pointer = POINTER if self.has_class("-selected") else " "
        return Content.assemble(pointer, glyph, " ", label, " ")
