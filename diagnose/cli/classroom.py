"""The instructor's commands for a class: `keygen`, `deal`, `handout`, `answers`,
`class-report`, `gradescope-autograder` and `wheel` (for cluster workers)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import click

from diagnose.cli.common import (
    BUNDLES_OPTION,
    JOBS_OPTION,
    KEY_OPTION,
    LANG,
    STEPS_OPTION,
    _echo,
    _interrupt_exit_code,
    _train_with_bars,
    cli,
)
from diagnose.cli.params import (
    COUNT_MAX,
    TIMEOUT_MAX,
    Bounded,
    BoundedFloat,
    LevelChoice,
    LevelOption,
    PathArg,
)
from grading.layout import GRADESCOPE_VISIBILITIES
from scenarios.words import say

if TYPE_CHECKING:
    from diagnose.classroom.cluster import TLSFiles
    from diagnose.classroom.deal import DealReport


@cli.command()
@KEY_OPTION
@BUNDLES_OPTION
@click.option("--out", type=PathArg(), default=Path("answer-key.csv"), show_default=True,
              help="The CSV to write (replaced whole if it exists).")
def answers(key_file: Path, bundles: Path, out: Path) -> None:
    """Write the class's answer key: one row per student, the break behind each ID.

    Columns: student, email, level, lang, code, then each ID's break, and a note for a bundle
    that cannot be opened. Records nothing and shows no student anything; keep the file as
    private as your key. (To hand students their solutions: diagnose reveal --key.)

    \b
    Example:
      diagnose answers --key course.key --bundles bundles --out answer-key.csv
    """
    from diagnose.classroom.answers import answer_key, write_answer_key
    from grading.seal import read_key_file

    rows = answer_key(bundles, read_key_file(key_file))
    write_answer_key(rows, out)
    _echo(f"Wrote {out}: the answers of {len(rows)} students. Keep it private; nothing was "
          "recorded.")


@cli.command()
@click.argument("students", metavar="[STUDENT...]", nargs=-1)
@BUNDLES_OPTION
@click.option("--out", type=PathArg(), default=Path("handout"), show_default=True,
              help="The folder for OUT/<student>.zip and OUT/README.md (made if missing).")
@click.option("--hand-in", "hand_in", metavar="TEXT",
              help='Where students hand in, in your words (e.g. "Canvas, assignment Break '
                   'it, by Friday"); default: where the instructor says.')
@click.option("--lang", type=LANG, default=None,
              help="Language of the start sheet for students whose manifest row names none "
                   "(default: the deal's).")
def handout(students: tuple[str, ...], bundles: Path, out: Path, hand_in: str | None,
            lang: str | None) -> None:
    """Make what to hand out: one zip per student, and a checklist of what stays private.

    Each OUT/<student>.zip holds their bundle (only the files a student needs: no attempt
    record, reveal or draft), the wheel of this diagnose and START.md, one page in their
    language: install, play, where to hand in, what counts. OUT/README.md lists what to give
    whom and what to keep private (your key, the ledger, the manifest, the gradebook, the
    answer key, the autograder zip) and why. Every student's when no STUDENT is named. No key
    needed; nothing is recorded.

    \b
    Example:
      diagnose handout --bundles bundles --out handout --hand-in "Canvas, by Friday 18:00"
      diagnose handout --bundles bundles --out handout carmen     # a late student
    """
    from diagnose.classroom.handout import write_handout

    made = write_handout(bundles, out, students, hand_in=hand_in, lang=lang)
    for name, path in made.zips.items():
        left = made.left_out[name]
        _echo(f"{name}: {path} ({made.langs[name]})"
              + (f"; left out of the bundle: {', '.join(left)}" if left else ""))
    _echo(f"Checklist of what to give and what to keep private: {made.checklist}")


@cli.command("class-report")
@KEY_OPTION
@BUNDLES_OPTION
@click.option("--out", type=PathArg(), default=Path("class-report.html"), show_default=True,
              help="The HTML page to write (replaced whole if it exists).")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the page and the summary.")
def class_report(key_file: Path, bundles: Path, out: Path, lang: str) -> None:
    """See which breaks the class found hard: an offline page and a summary.

    From each student's counted attempt (the ledger's) and the truth of their scenario, per
    level: how many found each break, what it was taken for (a confusion table, true break x
    diagnosis), the scores' histogram, and who has not handed in. The page opens offline
    (inline CSS, nothing loaded); keep it private: it holds every scenario's answers.
    Records nothing.

    \b
    Example:
      diagnose class-report --key course.key --bundles bundles --out report.html
    """
    from diagnose.classroom.report import class_report as summarise_class
    from diagnose.classroom.report import render_html, summary_lines
    from grading.seal import read_key_file
    from scenarios.files import atomic_write

    summary = summarise_class(bundles, read_key_file(key_file))
    for line in summary_lines(summary, lang):
        _echo(line)
    atomic_write(out, render_html(summary, lang, title=Path(bundles).resolve().name))
    _echo(say(lang, "Report: {path}", path=out))


@cli.command()
@click.option("--out", type=PathArg(), required=True,
              help="Where to write the key (never overwritten).")
def keygen(out: Path) -> None:
    """Make an instructor key: it seals every bundle you deal, and opens them to grade.

    The file gets mode 0600. Keep it private: a student with it can open their answer key.

    \b
    Example:
      diagnose keygen --out ~/course/diagnose.key
    """
    from grading.seal import fingerprint, new_secret, write_key_file

    secret = new_secret()
    write_key_file(out, secret)
    click.echo(f"Wrote the instructor key {out} (fingerprint {fingerprint(secret)}). "
               "Keep it private; deal with: diagnose deal --key " + str(out))


def _scheduler_syntax(ctx: click.Context, param: click.Parameter,
                      value: str | None) -> str | None:
    """Refuse what cannot be a scheduler's address before anything is read or dialled."""
    if value is None:
        return None
    from diagnose.classroom.cluster import check_address

    problem = check_address(value)
    if problem:
        raise click.BadParameter(problem)
    return value


@cli.command()
@click.option("--key", "key_file", type=PathArg(), required=True,
              help="Your instructor key, from `diagnose keygen`.")
@click.option("--out", type=PathArg(), required=True,
              help="Folder for the bundles: OUT/<student>/experiments/19-break-it.")
@click.option("--roster", type=PathArg(),
              help="CSV of students: name, then optional email, level and lang columns "
                   "(lang: the student's feedback language, en or es; a name,email,level,lang "
                   "header is optional; one name per line works too). At most 10,000 rows.")
@click.option("--count", type=Bounded(1, COUNT_MAX),
              help=f"Or: this many numbered students, 1 to {COUNT_MAX:,}.")
@STEPS_OPTION
@JOBS_OPTION
@click.option("--level", type=LevelChoice(), default=None, cls=LevelOption,
              help="The deck dealt to a student whose roster row names no level: one of "
                   "{levels} (default: the first; `diagnose breaks` lists their breaks).")
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the dashboards' labels.")
@click.option("--scheduler", metavar="ADDRESS", callback=_scheduler_syntax,
              help="Train on a Dask cluster instead (tls://HOST:8786, or tcp:// on a private "
                   "network), one task per student; the bundles are written and sealed here. "
                   "Needs the diagnose-training[cluster] extra here and on every worker.")
@click.option("--connect-timeout", type=BoundedFloat(0.1, TIMEOUT_MAX), default=10.0,
              show_default=True, metavar="SECONDS",
              help="With --scheduler: the whole wait to reach the scheduler, handshake included "
                   f"(0.1 to {TIMEOUT_MAX:g} s).")
@click.option("--min-workers", type=Bounded(1, COUNT_MAX), default=1, show_default=True,
              metavar="N", help="With --scheduler: start once N workers of this diagnose have "
                                f"joined (Slurm jobs start late; 1 to {COUNT_MAX}).")
@click.option("--worker-timeout", type=BoundedFloat(0.1, TIMEOUT_MAX), default=60.0,
              show_default=True, metavar="SECONDS",
              help="With --scheduler: how long to wait for --min-workers, or mid-deal for a "
                   f"worker of this diagnose when none is left (0.1 to {TIMEOUT_MAX:g} s).")
@click.option("--tls-ca-file", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: the CA certificate (PEM) the cluster's "
                   "certificates are signed with (else Dask's distributed.comm.tls settings).")
@click.option("--tls-cert", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: this client's certificate (PEM).")
@click.option("--tls-key", type=PathArg(exists=True, dir_okay=False),
              help="With a tls:// scheduler: this client's private key (PEM), unless "
                   "--tls-cert holds it.")
def deal(key_file: Path, out: Path, roster: Path | None, count: int | None,
         steps: int | None, jobs: int, level: int | None, lang: str, scheduler: str | None,
         connect_timeout: float, min_workers: int, worker_timeout: float,
         tls_ca_file: Path | None, tls_cert: Path | None, tls_key: Path | None) -> None:
    """Deal a class: one different, sealed scenario per student, trained here.

    Writes OUT/<student>/experiments/19-break-it for each student, OUT/manifest.csv
    (student, code, email, level, lang: every student ever dealt there, in roster order; a
    row is written before its student trains), OUT/deal-settings.json (with the deck) and
    OUT/deal-digests.json (each run's metrics sha256). A later deal decides from these, never
    from a bundle: one that disagrees is named and left alone, and a folder without its
    settings is refused. A student whose bundle was deleted is dealt again under the
    manifest's code: the same scenario.
    Bundles are sealed with your key: students cannot open their answers. An interrupted deal
    resumes: run the same command again. A later deal into OUT must use the same --steps,
    --lang and key, and deal each student already there the same level; it adds students,
    never drops them. A roster's level column (a level's number) picks each student's deck. With
    --scheduler the training runs on a Dask cluster's workers (same bundles, byte for byte, at
    every level); your key stays here, and only workers of this diagnose version get tasks
    (any other is named in a warning). A course's own breaks join the levels they name with
    diagnose --deck DIR deal ... (or DIAGNOSE_DECK=DIR); their code runs here only, and the
    bundles carry their scenario's data and sealed key, never that code.

    \b
    Example:
      diagnose deal --key course.key --out bundles --roster roster.txt
      diagnose deal --key course.key --out bundles --count 30 --jobs 2
      diagnose deal --key course.key --out bundles-l2 --count 30 --level 2
      diagnose deal --key course.key --out bundles --roster roster.txt \\
          --scheduler tls://10.0.0.5:8786 --tls-ca-file ca.pem --tls-cert me.pem \\
          --tls-key me.key --min-workers 32 --worker-timeout 600
    """
    from diagnose.classroom.cluster import ClusterOptions
    from diagnose.classroom.deal import DealOptions, deal_class

    if (roster is None) == (count is None):
        raise click.UsageError("give exactly one of --roster FILE or --count N")
    on_cluster = None if scheduler is None else ClusterOptions(
        scheduler, connect_timeout, min_workers, worker_timeout,
        _tls_files(tls_ca_file, tls_cert, tls_key))
    options = DealOptions(key_file, out, roster, count, steps, jobs, level, lang, on_cluster)
    try:
        done = deal_class(options, _deal_report())
    except KeyboardInterrupt as err:
        click.echo(f"\nInterrupted: the bundles sealed so far are kept in {out}; run the same "
                   "command again to deal the rest.", err=True)
        raise SystemExit(_interrupt_exit_code(err)) from None
    click.echo(f"Dealt {len(done.rows)} bundles into {out} in {done.seconds:.1f} s; "
               f"manifest: {done.manifest}")


def _tls_files(tls_ca_file: Path | None, tls_cert: Path | None, tls_key: Path | None
               ) -> TLSFiles | None:
    """`deal --scheduler`'s --tls-* files, paired as `dask worker` takes them."""
    from diagnose.classroom.cluster import TLSFiles

    if (tls_ca_file is None) != (tls_cert is None) or (tls_key and not tls_cert):
        raise click.UsageError("--tls-ca-file and --tls-cert go together (with --tls-key "
                               "unless the cert holds the key)")
    return None if tls_ca_file is None or tls_cert is None else TLSFiles(tls_ca_file, tls_cert,
                                                                         tls_key)


def _deal_report() -> DealReport:
    """A deal told on stderr, under progress bars; the summary line alone goes to stdout."""
    from diagnose.classroom.deal import DealReport

    def on_student(student: str, code: str, resumed: bool) -> None:
        note = "kept (already dealt)" if resumed else "sealed"
        click.echo(f"{student}: {code} {note}", err=True)

    return DealReport(warning=lambda line: click.echo(f"Warning: {line}", err=True),
                      student=on_student, redeal=lambda message: click.echo(message, err=True),
                      progress=_train_with_bars)


@cli.command("gradescope-autograder")
@click.option("--key", "key_file", type=PathArg(), required=True,
              help="Your key file (from `diagnose keygen`); it stays here, out of the zip.")
@click.option("--bundles", type=PathArg(), required=True,
              help="The folder `diagnose deal` wrote (its manifest.csv lists the class).")
@click.option("--out", type=PathArg(), default=Path("autograder.zip"),
              show_default=True, help="The zip to write (replaced whole if it exists).")
@click.option("--visibility", type=click.Choice(GRADESCOPE_VISIBILITIES),
              default="after_published", show_default=True,
              help="When students see their per-ID results (Gradescope's setting); a hidden "
                   "result hides its summary too.")
@click.option("--lang", type=LANG, default=None,
              help="Feedback language for students whose manifest row names none (default: "
                   "the deal's --lang, from deal-settings.json).")
def gradescope_autograder(key_file: Path, bundles: Path, out: Path, visibility: str,
                          lang: str | None) -> None:
    """Write the zip for Gradescope's "Upload autograder": grading without you, offline.

    Students upload their diagnoses file; Gradescope matches them to their bundle by email or
    name, grades it against their sealed key and counts the first graded upload. The zip
    holds setup.sh, run_autograder, the grader (this installation's own grading and scenarios
    packages), the manifest, each bundle's scenario.json and sealed key, one key per scenario
    (derived from yours, which is never packed) and each run's feedback numbers. Keep the zip
    as private as the bundles' answers. Each student's scenario is derived from your key and
    the manifest, never read from a bundle: a bundle that disagrees is named, and its student
    packed all the same. Turn groups off for the assignment: one score per submission.

    \b
    Example:
      diagnose gradescope-autograder --key course.key --bundles bundles --out autograder.zip
      diagnose gradescope-autograder --key course.key --bundles bundles --lang es \\
          --visibility after_due_date
    """
    from diagnose.classroom.gradescope import build_autograder
    from grading.seal import read_key_file

    secret = read_key_file(key_file)
    packed = build_autograder(out, bundles, secret, visibility=visibility, lang=lang)
    for line in packed.left_out:
        click.echo(f"Warning: {line}", err=True)
    click.echo(f"Wrote {out} for {packed.students} students. Upload it in Gradescope: the "
               "assignment's Configure Autograder, Zip file upload; set its points to the "
               "number of IDs.")


@cli.command()
@click.option("--out", type=PathArg(), default=Path("."), show_default=True,
              help="The folder to write the wheel into (made if missing).")
def wheel(out: Path) -> None:
    """Write this installed diagnose as a wheel, to install the same version elsewhere.

    Nothing is published on the package index: Dask workers install the wheel this writes,
    diagnose_training-<version>-py3-none-any.whl, from this installation's own files (an
    ordinary or an editable install; no build tools needed).

    \b
    Example:
      diagnose wheel --out dist
      pip install "dist/diagnose_training-0.1.0-py3-none-any.whl[cluster]"   # on a worker
    """
    from diagnose.classroom.wheel import write_wheel

    path = write_wheel(out)
    click.echo(f"Wrote {path}. Install it elsewhere with: pip install \"{path}[cluster]\" "
               "(or without [cluster] to play).")
