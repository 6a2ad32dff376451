"""Every word the TUI shows, in English and Spanish, and the help screen's text.

Panel titles and series names come from `diagnose.panels` and break titles from the catalog;
this module holds only the app's own words. The help explains how to read each panel against
the reference and never what any run holds: the same text for every scenario.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, TypeVar

from textual.binding import Binding

T = TypeVar("T")

WORDS: dict[str, dict[str, str]] = {
    "en": {
        "reference": "reference",
        "scenario": "scenario {code}",
        "training": "training {code}…",
        "level": " · level {level}",
        "interrupted": "Stopped before the end of training: nothing was written to {dir}. The "
                       "same scenario again: diagnose play --dir '{dir}' --seed '{code}'",
        "step_of": "{done}/{total} steps",
        "cursor": "step {step}",
        "nonfinite_from": "{mark} from step {step}",
        "log": "log",
        "linear": "linear",
        "zoomed": "steps 0-{last}",
        "overlay": "+reference",
        "ref_below": "the reference below, same scale",
        "ref_label": "ref",
        "hidden": "{shown} of {count}: ⏎ shows all",
        "envelope": "max/min of {count}: ⏎ shows each",
        "envelope_layers": "max/min of {count}: ⏎ per layer",
        "layers": "per layer, of {count}: ⏎ shows each",
        "layers_only": "max/med/min per layer, of {count}",
        "last": "last",
        "low": "min",
        "high": "max",
        "at": "at step",
        "form_title": "Diagnosis of run {run}",
        "form_break": "Which designed bug does {run} show?",
        "form_unsure": "not sure yet",
        "form_evidence": "Evidence: which panels show it, and their numbers",
        "form_keys": "Tab moves · Esc closes (your draft is kept) · Ctrl+S saves the file",
        "form_reference": "The reference is the healthy run: pick 1, 2 or 3 to diagnose a run.",
        "form_training": "Your draft is kept in memory until training ends, then on disk.",
        "name_title": "Your name, for the diagnoses file",
        "name_placeholder": "e.g. Ana García",
        "name_hint": "Kept for every level in your data folder; u changes it, as does "
                     "`diagnose play --name`. Enter saves, Esc cancels.",
        "name_kept": "Your name is now {name}: every level's diagnoses file carries it.",
        "name_not_kept": "Your name is used for this session only: {reason}",
        "saved": "Saved {path}",
        "save_failed": "Could not save: {reason}",
        "drafts_failed": "Drafts cannot be written ({reason}); they are kept in memory only",
        "wait_training": "Training is still running: wait for it to finish.",
        "grading": "Grading…",
        "grade_ask": "Grade now?",
        "grade_reveals": "Grading saves your diagnoses file, scores it and shows every answer "
                         "(the solutions). Your first grade is the one that counts.",
        "grade_missing": "No answer yet for {ids}: each would score 0.",
        "grade_unsure": "Marked \"not sure\": {ids} (each would score 0).",
        "grade_yes": "Grade and show the answers",
        "not_yet": "Not yet",
        "confirm_keys": "Enter or Esc: not yet · y: yes · Tab moves between the buttons",
        "grade_title": "Your grade",
        "grade_instructor": "This is an instructor's bundle: hand in {path}; your instructor "
                            "grades it.",
        "grade_failed": "Could not grade: {reason}",
        "check_title": "Your file, as your instructor's grader will read it",
        "solutions": "Solutions, with each run's own numbers: {path}",
        "close": "Esc closes",
        "next_level": "n: play level {level} now (or later: n on the dashboard)",
        "next_key": "n plays it now.",
        "next_locked": "n opens level {next} once level {level} is passed (3/3 on a "
                       "scenario's first grading); `diagnose play --level {next}` goes there now.",
        "next_none": "Level {level} is the last level: there is no next one.",
        "whatif_training": "What if: training the other magnitudes… {done}/{total} steps",
        "progress_title": "Your progress through the levels",
        "redeal": "The runs could not be told apart; training again with fresh seeds.",
        "training_failed": "Training failed: {reason}",
        "detail_keys": "←/→ cursor · esc back",
        "drafts_kept": "Your diagnoses are kept as a draft in {path}: `diagnose play --dir "
                       "'{dir}'` brings them back.",
        "file_saved": "Your diagnoses file: {path}.",
    },
    "es": {
        "reference": "referencia",
        "scenario": "escenario {code}",
        "training": "entrenando {code}…",
        "level": " · nivel {level}",
        "interrupted": "Parado antes de acabar el entrenamiento: no se escribió nada en {dir}. "
                       "El mismo escenario otra vez: diagnose play --dir '{dir}' --seed '{code}'",
        "step_of": "{done}/{total} pasos",
        "cursor": "paso {step}",
        "nonfinite_from": "{mark} desde el paso {step}",
        "log": "log",
        "linear": "lineal",
        "zoomed": "pasos 0-{last}",
        "overlay": "+referencia",
        "ref_below": "la referencia debajo, misma escala",
        "ref_label": "ref",
        "hidden": "{shown} de {count}: ⏎ las muestra",
        "envelope": "máx/mín de {count}: ⏎ cada una",
        "envelope_layers": "máx/mín de {count}: ⏎ por capa",
        "layers": "por capa, de {count}: ⏎ cada una",
        "layers_only": "máx/med/mín por capa, de {count}",
        "last": "último",
        "low": "mín",
        "high": "máx",
        "at": "en el paso",
        "form_title": "Diagnóstico de la ejecución {run}",
        "form_break": "¿Qué fallo diseñado muestra {run}?",
        "form_unsure": "aún no lo sé",
        "form_evidence": "Evidencia: qué paneles lo muestran, y sus números",
        "form_keys": "Tab cambia de campo · Esc cierra (el borrador se guarda) · Ctrl+S guarda "
                     "el archivo",
        "form_reference": "La referencia es la ejecución sana: elige 1, 2 o 3 para diagnosticar.",
        "form_training": "El borrador se guarda en memoria hasta que acabe el entrenamiento, "
                         "luego en disco.",
        "name_title": "Tu nombre, para el archivo de diagnósticos",
        "name_placeholder": "p. ej. Ana García",
        "name_hint": "Se guarda para todos los niveles en tu carpeta de datos; u lo cambia, "
                     "igual que `diagnose play --name`. Enter guarda, Esc cancela.",
        "name_kept": "Tu nombre es ahora {name}: lo lleva el archivo de diagnósticos de cada "
                     "nivel.",
        "name_not_kept": "Tu nombre se usa solo en esta sesión: {reason}",
        "saved": "Guardado {path}",
        "save_failed": "No se pudo guardar: {reason}",
        "drafts_failed": "No se pueden escribir los borradores ({reason}); quedan solo en "
                         "memoria",
        "wait_training": "El entrenamiento sigue en marcha: espera a que termine.",
        "grading": "Corrigiendo…",
        "grade_ask": "¿Corregir ahora?",
        "grade_reveals": "Corregir guarda tu archivo de diagnósticos, lo puntúa y muestra todas "
                         "las respuestas (las soluciones). Cuenta tu primera nota.",
        "grade_missing": "Aún sin respuesta: {ids}; cada una puntuaría 0.",
        "grade_unsure": "Marcadas «aún no lo sé»: {ids} (cada una puntuaría 0).",
        "grade_yes": "Corregir y ver las respuestas",
        "not_yet": "Todavía no",
        "confirm_keys": "Enter o Esc: todavía no · y: sí · Tab cambia de botón",
        "grade_title": "Tu nota",
        "grade_instructor": "Es un paquete del profesor: entrega {path}; lo corrige tu profesor.",
        "grade_failed": "No se pudo corregir: {reason}",
        "check_title": "Tu archivo, tal como lo leerá el corrector de tu profesor",
        "solutions": "Soluciones, con los números de cada ejecución: {path}",
        "close": "Esc cierra",
        "next_level": "n: jugar ya el nivel {level} (o más tarde: n en el panel de control)",
        "next_key": "n lo abre ya.",
        "next_locked": "n abre el nivel {next} cuando superes el nivel {level} (3/3 en la "
                       "primera corrección de un escenario); `diagnose play --level {next}` "
                       "va ya.",
        "next_none": "El nivel {level} es el último: no hay siguiente.",
        "whatif_training": "¿Y si…?: entrenando las otras magnitudes… {done}/{total} pasos",
        "progress_title": "Tu progreso por los niveles",
        "redeal": "Las ejecuciones no se distinguían; se entrenan de nuevo con otras semillas.",
        "training_failed": "El entrenamiento falló: {reason}",
        "detail_keys": "←/→ cursor · esc vuelve",
        "drafts_kept": "Tus diagnósticos quedan como borrador en {path}: `diagnose play --dir "
                       "'{dir}'` los recupera.",
        "file_saved": "Tu archivo de diagnósticos: {path}.",
    },
}

# The footer's key descriptions are written in English in each screen's BINDINGS.
KEYS_ES = {
    "runs": "ejec.", "log": "log", "reference": "referencia", "ref": "ref", "zoom": "zoom",
    "cursor": "cursor", "detail": "detalle", "diagnose": "respuesta", "save": "guardar",
    "grade": "nota", "help": "ayuda", "quit": "salir", "back": "volver",
    "clear cursor": "quitar cursor", "start": "inicio", "end": "fin", "panel": "panel",
    "open": "ver", "what-if": "¿y si…?", "progress": "progreso", "next level": "siguiente",
    "name": "nombre", "run": "ejecución",
}


def tr(lang: str, key: str, **fields: Any) -> str:
    return WORDS[lang][key].format(**fields)


def _translated(binding: Binding) -> Binding:
    group = binding.group
    if group is not None:
        group = Binding.Group(KEYS_ES.get(group.description, group.description), group.compact)
    return replace(binding, description=KEYS_ES.get(binding.description, binding.description),
                   group=group)


_LOCALISED: dict[tuple[type, str], type] = {}


def localised(cls: type[T], lang: str) -> type[T]:
    """`cls` with its footer descriptions in `lang` (they are English in its BINDINGS).

    A subclass of the same name whose BINDINGS replace the English ones key by key, as Textual
    merges a class's BINDINGS over its bases'; the stylesheet's rules for `cls` still apply.
    """
    if lang == "en":
        return cls
    if (cls, lang) not in _LOCALISED:
        bindings = [_translated(b) for b in cls.__dict__.get("BINDINGS", [])]
        _LOCALISED[cls, lang] = type(cls.__name__, (cls,), {"BINDINGS": bindings,
                                                            "__module__": cls.__module__})
    return _LOCALISED[cls, lang]


HELP = {
    "en": """\
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
minimum and the maximum of what is shown.

## 1 · Loss (log axis)
Train loss every step, validation loss every {eval_every} steps, in nats per target token.
The dotted line is the **entropy floor**: the lowest average loss any model can reach on this
corpus when it predicts each token from the tokens before it (each example is one of a finite
table of conjugations drawn uniformly). The floor binds the **validation** loss, an average over
the whole split: one training batch of 32 examples can dip below it late in a healthy run
(an easy batch: in 49 of 60 healthy runs, from step 327 on), which tells nothing.
A fresh model should start near ln(vocab) = {ln_vocab}: a uniform guess. Read where the loss
starts, how fast it falls, whether validation follows train, and where it ends against the
floor.

## 2 · Learning rate (linear)
The learning rate the optimizer applied at each step. The healthy schedule climbs linearly
from near zero to lr_max (the dotted line) over its first {warmup} steps, then decays along a
cosine to lr_max/10. Read its value at step 0 and the shape of the first steps.

## 3 · Gradient norm (log axis)
The global L2 norm of all gradients, before clipping and after. Clipping rescales the
gradient so its norm is at most {clip} (the dotted line): the post-clip norm never exceeds it,
and while the pre-clip norm sits above the line every update is clipped. Read the size of the
pre-clip norm in the first steps and any later spikes, against the reference's.

## 4 · Activations (log axis)
Mean absolute value of the residual stream after each block (h.0, h.1) and of the final
LayerNorm's output (ln_f). Read the order of magnitude at step 0 and how it moves: a healthy
residual stream stays within an order of magnitude of 1.

## 5 · Spectral norm (log axis)
The largest singular value σ of each weight matrix: how much it can stretch a vector. A small
panel shows the largest and smallest of the nine; `enter` shows each one. Read the level at
step 0 (set by the initialisation) and how fast it moves in the first updates, against the
reference, which barely moves there.

## 6 · Dead units (linear, in %)
Measured every {eval_every} steps on a fixed batch of {probe} validation examples. A **head**
is dead when its attention is degenerate — near-uniform (entropy at least {uniform:.0%} of the
uniform's) or collapsed (top weight at least {collapse}) for at least {queries:.0%} of the
queries — *and* zeroing its output changes the probe loss by less than {ablation} nats: it is
not needed. Shown as a count of {heads}. A **neuron** of an MLP is dead when its GELU input is
negative on every probe token; shown as a % of {neurons}. A healthy model needs its heads.

## What this engine shows that a textbook may not
Every curve comes from the arithmetic of real training; nothing is drawn to look like a bug.
Two consequences surprise readers of some course tables. The loss is computed with a
numerically stable log-softmax, so even absurd logits give a huge but finite loss: a broken
run keeps going rather than turning into NaN. And in a pre-LayerNorm transformer trained with
Adam, the gradient norm is usually largest at initialisation, warmup or not (among the first six
steps, at step 0 in 59 of 60 healthy runs and in 48 of 60 without warmup), because
Adam's step size does not depend on the gradient's size: look for what changes from the
reference, not for a textbook spike.

## Keys
`0` reference · `1` `2` `3` runs · `l` log/linear · `r` reference under the run · `z` zoom ·
`←` `→` step cursor (`shift` ×10, `home` `end`, `esc` clears) ·
`tab` / `shift+tab` move to the next / previous panel (its title shows **▶**) ·
`enter` (or a click) opens that panel with axes · `d` diagnosis form ·
`ctrl+s` save your diagnoses file · `g` grade (it asks first: grading shows every answer) ·
`?` this help · `q` quit. Your diagnoses are kept as a draft at every keystroke.
After the reveal, `w` on a run retrains its break at other magnitudes and shows them side by side.
`p` shows your progress through the levels; `n` opens the next level once this one is passed.
`u` changes your name (asked once, on the first save, and kept for every level).
""",
    "es": """\
# Cómo leer el panel de control

La **referencia** es una ejecución sana. Cada una de **01 02 03** usa el mismo modelo, datos y
schedule con como mucho un fallo diseñado: en el nivel 1 cada una tiene uno, desde el nivel 2
una de ellas puede no tener ninguno (el señuelo sano, otra semilla de la referencia). Compara
cada ejecución con la referencia, panel a panel, paso a paso, y nombra su fallo. `r` dibuja la
referencia debajo de la ejecución en la misma escala (sus filas llevan la etiqueta `ref`), `z`
amplía los primeros {zoom} pasos (donde pasa casi todo lo importante), `←`/`→` mueven un cursor
que muestra el valor de cada panel en ese paso, `tab` pasa al panel siguiente (marcado con
**▶**) y `enter` (o un clic) lo abre con ejes.

Las filas de un panel comparten escala; la línea de puntos es una guía (el suelo de entropía,
el umbral de recorte, lr_max). Una **×** roja marca un NaN, **▲**/**▼** un valor infinito: la
ejecución siguió y las curvas también. Los valores a la derecha de una fila: el último (o el
del cursor), el mínimo y el máximo de lo que se ve.

## 1 · Pérdida (eje log)
Pérdida de entrenamiento en cada paso y de validación cada {eval_every} pasos, en nats por
token objetivo. La línea de puntos es el **suelo de entropía**: la menor pérdida media que un
modelo puede alcanzar en este corpus cuando predice cada token a partir de los anteriores
(cada ejemplo es una conjugación de una tabla finita, elegida al azar). El suelo limita la
pérdida de **validación**, una media sobre todo el conjunto: un solo batch de entrenamiento de 32
ejemplos puede bajar de él al final de una ejecución sana (un batch fácil: en 49 de 60
ejecuciones sanas, desde el paso 327), y eso no dice nada.
Un modelo recién
iniciado debería empezar cerca de ln(vocab) = {ln_vocab}: adivinar al azar. Mira dónde empieza,
lo rápido que baja, si validación sigue a entrenamiento y dónde acaba frente al suelo.

## 2 · Learning rate (lineal)
El learning rate que aplicó el optimizador en cada paso. El schedule sano sube linealmente
desde casi cero hasta lr_max (la línea de puntos) en sus primeros {warmup} pasos y luego baja
en coseno hasta lr_max/10. Mira su valor en el paso 0 y la forma de los primeros pasos.

## 3 · Norma del gradiente (eje log)
La norma L2 global de todos los gradientes, antes y después del recorte. El recorte reescala
el gradiente para que su norma sea como mucho {clip} (la línea de puntos): la norma recortada
nunca la supera, y mientras la norma sin recortar está por encima, cada actualización se
recorta. Mira su tamaño en los primeros pasos y los picos posteriores, frente a la referencia.

## 4 · Activaciones (eje log)
Media del valor absoluto del residual stream tras cada bloque (h.0, h.1) y de la salida de la
LayerNorm final (ln_f). Mira el orden de magnitud en el paso 0 y cómo evoluciona: un residual
sano se queda a menos de un orden de magnitud de 1.

## 5 · Norma espectral (eje log)
El mayor valor singular σ de cada matriz de pesos: cuánto puede estirar un vector. Un panel
pequeño muestra la mayor y la menor de las nueve; `enter` las muestra todas. Mira el nivel en
el paso 0 (lo fija la inicialización) y lo rápido que cambia en las primeras actualizaciones,
frente a la referencia, que apenas se mueve ahí.

## 6 · Unidades muertas (lineal, en %)
Se miden cada {eval_every} pasos sobre un lote fijo de {probe} ejemplos de validación. Una
**cabeza** está muerta cuando su atención es degenerada — casi uniforme (entropía de al menos
el {uniform:.0%} de la uniforme) o colapsada (peso máximo de al menos {collapse}) en al menos
el {queries:.0%} de las consultas — *y* anular su salida cambia la pérdida de la sonda menos de
{ablation} nats: no hace falta. Se cuenta sobre {heads}. Una **neurona** de un MLP está muerta
cuando la entrada de su GELU es negativa en todos los tokens de la sonda; en % de {neurons}.
Un modelo sano necesita sus cabezas.

## Lo que muestra este motor y quizá no un libro
Cada curva sale de la aritmética de un entrenamiento real; nada se dibuja para parecer un
fallo. Dos consecuencias sorprenden a quien lea algunas tablas del curso. La pérdida se calcula
con un log-softmax numéricamente estable, así que hasta unos logits absurdos dan una pérdida
enorme pero finita: una ejecución rota sigue adelante en vez de volverse NaN. Y en un
transformer pre-LayerNorm entrenado con Adam, la norma del gradiente suele ser máxima en la
inicialización, con warmup o sin él (entre los seis primeros pasos, en el paso 0 en 59 de 60
ejecuciones sanas y en 48 de 60 sin warmup), porque el tamaño del paso de Adam no
depende del tamaño del gradiente: busca lo que cambia respecto a la referencia, no un pico de
libro.

## Teclas
`0` referencia · `1` `2` `3` ejecuciones · `l` log/lineal · `r` referencia debajo · `z` zoom ·
`←` `→` cursor (`shift` ×10, `home` `end`, `esc` lo quita) ·
`tab` / `shift+tab` pasan al panel siguiente / anterior (su título muestra **▶**) ·
`enter` (o un clic) abre ese panel con ejes · `d` formulario de diagnóstico ·
`ctrl+s` guarda tu archivo de diagnósticos · `g` corrige (pregunta antes: corregir muestra
todas las respuestas) · `?` esta ayuda · `q` salir. Tus diagnósticos se guardan como borrador
con cada tecla. Tras revelar, `w` en una ejecución reentrena su fallo con otras magnitudes y las
muestra juntas. `p` muestra tu progreso por los niveles; `n` abre el nivel siguiente cuando
superas este. `u` cambia tu nombre (se pregunta una vez, al guardar por primera vez, y se
guarda para todos los niveles).
""",
}


def help_text(lang: str) -> str:
    """The help in `lang`, with the healthy config's numbers (the same for every run)."""
    import math

    from diagnose.tui.drawing.scale import ZOOM_STEPS
    from scenarios import healthy_config

    c = healthy_config()
    return HELP[lang].format(
        zoom=ZOOM_STEPS, eval_every=c.eval_every, ln_vocab=f"{math.log(c.vocab_size):.2f}",
        warmup=c.warmup_steps, clip=f"{c.grad_clip:g}", probe=c.probe_examples,
        uniform=c.head_uniform_entropy, collapse=f"{c.head_collapse_weight:g}",
        queries=c.head_query_fraction, ablation=f"{c.head_ablation_nats:g}",
        heads=c.n_layers * c.n_heads, neurons=c.n_layers * c.d_ff)
