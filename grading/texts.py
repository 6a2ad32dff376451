"""Every sentence the grader says to a student, in English and Spanish.

`say(lang, key, **values)` fills one in. The break-specific texts (titles, what each panel
shows) come from the catalog, not from here. Error messages stay in English, like the rest of
the command line's errors.
"""

from __future__ import annotations

from scenarios.langs import LANGS

__all__ = ["LANGS", "TEXTS", "panel_name", "quote", "say"]

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "q": '"{}"',
        "named.label": "Read {read} on the {label} line: {slug}.",
        "named.heading": "Read {read} after the ID: {slug}.",
        "named.text": "No answer line; the free text names only {slug} ({words}).",
        "ambiguous.label": "The {label} line {read} names {n} breaks: {listing}; an answer must "
                           'name exactly one (and "not X" still names X).',
        "ambiguous.heading": "{read} after the ID names {n} breaks: {listing}; an answer must "
                             "name exactly one.",
        "ambiguous.text": "No answer line, and the free text names {n} breaks: {listing}; put "
                          'the one you mean on a "Diagnosis:" line.',
        "empty.label": "The {label} line is empty.",
        "unsure.label": "The {label} line says {read}: no answer.",
        "nothing.label": "The {label} line {read} names no break of the catalog.",
        "nothing.text": "No answer line, and the section names no break; put one on a "
                        '"Diagnosis:" line.',
        "missing": "No section for {id} was found.",
        "right": "Right: {id} was {slug}: {title}.",
        "wrong": "Wrong: {id} was {slug}: {title}.",
        "panels": "The panels that show it:",
        "panel": "Panel {n} ({name}): {text}",
        "this_run": "In this run:",
        "panel_names": "Loss|LR|Grad norm|Activations|Spectral|Dead",
        "verdict.right": "right",
        "verdict.wrong": "wrong",
        "header": "Scenario {code} · {file}",
        "score": "Score: {score}/{max}",
        "counts": "First attempt: this one counts.",
        "solutions": "Solutions: {path}",
        "unprotected": "Recorded in {path} only: no deal folder above it (a folder with "
                       "manifest.csv or deal-settings.json that lists it) keeps a ledger, so "
                       "its first attempt cannot be protected there.",
        "later": "First attempt {score}/{max} on {date}; this one (attempt {n}) does not count.",
        "later.revealed": "First attempt {score}/{max} on {date}; this one after the reveal "
                          "does not count.",
        "note.extra": "Sections for {ids} were found, but this scenario has only {known}: "
                      "ignored.",
        "note.duplicates": "{ids}: more than one section; they were read together.",
        "note.empty": 'No sections found: start each with a heading such as "## 01".',
        "note.shapes": 'No section for {ids}. A section starts with a heading ("## 01", '
                       '"### Run 2"), a line with its ID set apart ("01:", "Run 1 —", '
                       '"ID 02:", "Experiment #3:", "**01**"), a numbered line with an answer '
                       '("1) Diagnosis: ...", "2. Break: ..."), or a table row '
                       '("| 01 | no warmup |").',
        "note.no_code": "No <!-- scenario: CODE --> comment: fine on your own; in a class your "
                        "file is matched to you by its name.",
        "check.header": "Checked {file}",
        "check.scenario": " · scenario {code}",
        "check.summary": "{k} of {n} IDs name one break. Nothing is scored without the key.",
        "status.ambiguous": "ambiguous",
        "status.nothing": "no break",
        "status.empty": "empty",
        "status.unsure": "not sure",
        "status.missing": "missing",
    },
    "es": {
        "q": "«{}»",
        "named.label": "Leído {read} en la línea {label}: {slug}.",
        "named.heading": "Leído {read} tras el ID: {slug}.",
        "named.text": "Sin línea de respuesta; el texto libre nombra solo {slug} ({words}).",
        "ambiguous.label": "La línea {label} {read} nombra {n} fallos: {listing}; una respuesta "
                           "debe nombrar exactamente uno (y «no X» sigue nombrando X).",
        "ambiguous.heading": "{read} tras el ID nombra {n} fallos: {listing}; una respuesta "
                             "debe nombrar exactamente uno.",
        "ambiguous.text": "Sin línea de respuesta, y el texto libre nombra {n} fallos: "
                          "{listing}; escribe el que quieres decir en una línea «Diagnóstico:».",
        "empty.label": "La línea {label} está vacía.",
        "unsure.label": "La línea {label} dice {read}: sin respuesta.",
        "nothing.label": "La línea {label} {read} no nombra ningún fallo del catálogo.",
        "nothing.text": "Sin línea de respuesta, y la sección no nombra ningún fallo; escribe "
                        "uno en una línea «Diagnóstico:».",
        "missing": "No se encontró ninguna sección para {id}.",
        "right": "Correcto: {id} era {slug}: {title}.",
        "wrong": "Incorrecto: {id} era {slug}: {title}.",
        "panels": "Los paneles que lo muestran:",
        "panel": "Panel {n} ({name}): {text}",
        "this_run": "En esta ejecución:",
        "panel_names": "pérdida|LR|norma del gradiente|activaciones|espectral|muertas",
        "verdict.right": "correcto",
        "verdict.wrong": "incorrecto",
        "header": "Escenario {code} · {file}",
        "score": "Puntuación: {score}/{max}",
        "counts": "Primer intento: este es el que cuenta.",
        "solutions": "Soluciones: {path}",
        "unprotected": "Registrado solo en {path}: ninguna carpeta de reparto por encima (una "
                       "carpeta con manifest.csv o deal-settings.json que lo liste) guarda un "
                       "registro, así que su primer intento no se puede proteger ahí.",
        "later": "Primer intento {score}/{max} el {date}; este (intento {n}) no cuenta.",
        "later.revealed": "Primer intento {score}/{max} el {date}; este, posterior a la "
                          "revelación, no cuenta.",
        "note.extra": "Se encontraron secciones para {ids}, pero este escenario solo tiene "
                      "{known}: se ignoran.",
        "note.duplicates": "{ids}: más de una sección; se leyeron juntas.",
        "note.empty": "No se encontró ninguna sección: empieza cada una con un título como "
                      "«## 01».",
        "note.shapes": "Ninguna sección para {ids}. Una sección empieza con un título "
                       "(«## 01», «### Experimento 2»), una línea con su ID aparte («01:», "
                       "«Run 1 —», «ID 02:», «Experimento #3:», «**01**»), una línea numerada "
                       "con una respuesta («1) Fallo: ...», «2. Diagnóstico: ...») o una fila "
                       "de tabla («| 01 | sin warmup |»).",
        "note.no_code": "Sin comentario <!-- scenario: CÓDIGO -->: vale por tu cuenta; en clase "
                        "tu archivo se te asigna por su nombre.",
        "check.header": "Revisado {file}",
        "check.scenario": " · escenario {code}",
        "check.summary": "{k} de {n} IDs nombran un fallo. Sin la clave no se puntúa nada.",
        "status.ambiguous": "ambiguo",
        "status.nothing": "ningún fallo",
        "status.empty": "vacía",
        "status.unsure": "no lo sé",
        "status.missing": "falta",
    },
}


def say(lang: str, key: str, **values: object) -> str:
    return TEXTS[lang][key].format(**values)


def quote(lang: str, text: str) -> str:
    return TEXTS[lang]["q"].format(text)


def panel_name(lang: str, number: str) -> str:
    return TEXTS[lang]["panel_names"].split("|")[int(number) - 1]
