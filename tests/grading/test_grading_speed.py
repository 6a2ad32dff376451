"""Guard: a diagnoses file at the 1 MiB cap is read in seconds, not minutes.

A generous wall-clock limit in a subprocess, so a return of quadratic reading fails loudly
instead of hanging the suite. The figures per shape are printed by `python bench/grade.py`.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
READ_WORST = """
from grading.diagnoses import MAX_BYTES, parse_diagnoses
unit = b"bad-init no-warmup "
line = b"## 01\\nDiagnosis: " + unit * ((MAX_BYTES - 20) // len(unit))
reading = parse_diagnoses(line)
assert reading.answers[0].status == "ambiguous", reading.answers[0].status
words = b" ".join(b"no warmup sin calentamiento bad init Xavier x100 mascara rota".split())
parse_diagnoses((words + b" ") * (MAX_BYTES // (len(words) + 1)))
"""


def test_a_file_at_the_size_cap_is_read_within_twenty_seconds():
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    subprocess.run([sys.executable, "-c", READ_WORST], cwd=ROOT, env=env, check=True,
                   timeout=20)
