"""The help screen's text: how to read each panel against the reference, and the keys.

Every other word the TUI shows is said where it is shown (`scenarios.words.say`), panel titles
and series names come from `diagnose.views.panels` and break titles from the catalog. The help is
one message per section, in English here and in each language's catalog; it explains how to
read each panel against the reference and never what any run holds: the same text for every
scenario, with the healthy config's numbers. No Textual.
"""

from __future__ import annotations

import math

from scenarios.words import N_, say

HELP = (
    N_("""\
# How to read the dashboard

The **reference** is a healthy run. Each of **01 02 03** is the same model, data and schedule
with at most one designed bug: at level 1 each holds one, from level 2 on one of them may hold
none (the healthy decoy, another seed of the reference). Compare each run with the reference,
panel by panel, step by step, and name its bug. `r` draws the reference under the run on the
same scale (its rows are labelled `ref`), `z` zooms on the first {zoom} steps (where most of
what matters happens), `←`/`→` move a step cursor that shows every panel's value at that step,
`tab` moves to the next panel (marked **▶**) and `enter` (or a click) opens it with axes.

A panel's rows share one scale; the dotted line is a guide (the entropy floor, the clip
threshold, lr_max). A red **×** marks a NaN, **▲**/**▼** an infinite value: the run kept
going and so do the curves. Values at the right of a row: the last (or the cursor's), the
minimum and the maximum of what is shown."""),
    N_("""\
## 1 · Loss (log axis)
Train loss every step, validation loss every {eval_every} steps, in nats per target token.
The dotted line is the **entropy floor**: the lowest average loss any model can reach on this
corpus when it predicts each token from the tokens before it (each example is one of a finite
table of conjugations drawn uniformly). The floor binds the **validation** loss, an average over
the whole split: one training batch of 32 examples can dip below it late in a healthy run
(an easy batch: in 33 of 40 healthy runs, from step 321 on), which tells nothing.
A fresh model should start near ln(vocab) = {ln_vocab}: a uniform guess. Read where the loss
starts, how fast it falls, whether validation follows train, and where it ends against the
floor."""),
    N_("""\
## 2 · Learning rate (linear)
The learning rate the optimizer applied at each step. The healthy schedule climbs linearly
from near zero to lr_max (the dotted line) over its first {warmup} steps, then decays along a
cosine to lr_max/10. Read its value at step 0 and the shape of the first steps."""),
    N_("""\
## 3 · Gradient norm (log axis)
The global L2 norm of all gradients, before clipping and after. Clipping rescales the
gradient so its norm is at most {clip} (the dotted line): the post-clip norm never exceeds it,
and while the pre-clip norm sits above the line every update is clipped. Read the size of the
pre-clip norm in the first steps and any later spikes, against the reference's."""),
    N_("""\
## 4 · Activations (log axis)
Mean absolute value of the residual stream after each block (h.0, h.1) and of the final
LayerNorm's output (ln_f). Read the order of magnitude at step 0 and how it moves: a healthy
residual stream stays within an order of magnitude of 1."""),
    N_("""\
## 5 · Spectral norm (log axis)
The largest singular value σ of each weight matrix: how much it can stretch a vector. A small
panel shows the largest and smallest of the nine; `enter` shows each one. Read the level at
step 0 (set by the initialisation) and how fast it moves in the first updates, against the
reference, which barely moves there."""),
    N_("""\
## 6 · Dead units (linear, in %)
Measured every {eval_every} steps on a fixed batch of {probe} validation examples. A **head**
is dead when its attention is degenerate — near-uniform (entropy at least {uniform:.0%} of the
uniform's) or collapsed (top weight at least {collapse}) for at least {queries:.0%} of the
queries — *and* zeroing its output changes the probe loss by less than {ablation} nats: it is
not needed. Shown as a count of {heads}. A **neuron** of an MLP is dead when its GELU input is
negative on every probe token; shown as a % of {neurons}. A healthy model needs its heads."""),
    N_("""\
## What this engine shows that a textbook may not
Every curve comes from the arithmetic of real training; nothing is drawn to look like a bug.
Two consequences surprise readers of some course tables. The loss is computed with a
numerically stable log-softmax, so even absurd logits give a huge but finite loss: a broken
run keeps going rather than turning into NaN. And in a pre-LayerNorm transformer trained with
Adam, the gradient norm is usually largest at initialisation, warmup or not (among the first six
steps, at step 0 in 38 of 40 healthy runs and in 31 of 40 without warmup), because
Adam's step size does not depend on the gradient's size: look for what changes from the
reference, not for a textbook spike."""),
    N_("""\
## Keys
`0` reference · `1` `2` `3` runs · `l` log/linear · `r` reference under the run · `z` zoom ·
`←` `→` step cursor (`shift` ×10, `home` `end`, `esc` clears) ·
`tab` / `shift+tab` move to the next / previous panel (its title shows **▶**) ·
`enter` (or a click) opens that panel with axes · `d` diagnosis form ·
`ctrl+s` save your diagnoses file · `g` grade (it asks first: grading shows every answer) ·
`?` this help · `q` quit. Your diagnoses are kept as a draft at every keystroke.
After the reveal, `w` on a run retrains its break at other magnitudes and shows them side by side.
`p` shows your progress through the levels; `n` opens the next level once this one is passed.
`u` changes your name (asked once, on the first save, and kept for every level)."""),
)


def help_text(lang: str) -> str:
    """The help in `lang`, with the healthy config's numbers (the same for every run)."""
    from diagnose.tui.drawing.scale import ZOOM_STEPS
    from scenarios import healthy_config
    from scenarios.numbers import number

    c = healthy_config()
    numbers = dict(
        zoom=ZOOM_STEPS, eval_every=c.eval_every,
        ln_vocab=number(lang, math.log(c.vocab_size), ".2f"), warmup=c.warmup_steps,
        clip=number(lang, c.grad_clip, "g"), probe=c.probe_examples,
        uniform=c.head_uniform_entropy, collapse=number(lang, c.head_collapse_weight, "g"),
        queries=c.head_query_fraction, ablation=number(lang, c.head_ablation_nats, "g"),
        heads=c.n_layers * c.n_heads, neurons=c.n_layers * c.d_ff)
    return "\n\n".join(say(lang, section, **numbers) for section in HELP) + "\n"
