"""`python -m diagnose`: the same as the `diagnose` command."""

from diagnose.cli import main

if __name__ == "__main__":  # importing the module (pkgutil walks it) runs nothing
    main()
