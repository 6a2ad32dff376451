"""`python -m diagnose`: the same as the `diagnose` command."""

from diagnose.cli import main

main()
