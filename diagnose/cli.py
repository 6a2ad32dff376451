"""The command line: one click group, each command a short function with an example.

Domain code raises its own exceptions; only this module turns them into `click.ClickException`
(exit 1, a fixable problem) or `click.UsageError` (exit 2, bad usage). numpy and textual are
imported inside the commands that need them, so `diagnose --help` stays instant.
"""

from __future__ import annotations

import click

from diagnose import __version__

CONTEXT = {"help_option_names": ["-h", "--help"], "max_content_width": 100}
LANG = click.Choice(["en", "es"])


@click.group(context_settings=CONTEXT)
@click.version_option(__version__, "-V", "--version", prog_name="diagnose")
def cli() -> None:
    """diagnose: learn how training failures look.

    A tiny GPT is trained four times, once healthy and three times with one designed bug
    each (bad initialisation, missing warmup, broken causal mask), behind the opaque IDs
    01 02 03. Read the six dashboard panels, diagnose each run, and get graded.

    \b
    Example:
      diagnose play          # a fresh scenario, trained live in the terminal
    """


@cli.command()
@click.option("--lang", type=LANG, default="en", show_default=True,
              help="Language of the titles and summaries.")
def breaks(lang: str) -> None:
    """List the catalog's breaks: slug, titles and a one-line summary.

    \b
    Example:
      diagnose breaks --lang es
    """
    from scenarios import CatalogError, default_catalog

    try:
        catalog = default_catalog()
    except CatalogError as err:
        raise click.ClickException(str(err)) from None
    for brk in catalog.breaks.values():
        click.echo(click.style(brk.slug, bold=True))
        click.echo(f"  en: {brk.title['en']}")
        click.echo(f"  es: {brk.title['es']}")
        click.echo(f"  {brk.summary[lang]}")


def main() -> None:
    cli(prog_name="diagnose")
