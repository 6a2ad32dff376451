"""`ChoiceButton`: a radio button whose state is a glyph, `(•)` chosen and `( )` not.

Textual's RadioButton draws `▐●▌` for every option and tells the chosen one by colour alone,
which a monochrome terminal or `NO_COLOR` loses. This one draws the state in the text itself
(bold when chosen), through the public `render`; everything else is RadioButton's.
"""

from __future__ import annotations

from textual.content import Content
from textual.widgets import RadioButton

CHOSEN, NOT_CHOSEN = "(•)", "( )"


class ChoiceButton(RadioButton):
    def render(self) -> Content:
        label = self.label.stylize_before(self.get_visual_style("toggle--label"))
        glyph = Content.styled(CHOSEN, "bold") if self.value else Content(NOT_CHOSEN)
        return Content.assemble(glyph, " ", label, " ")
