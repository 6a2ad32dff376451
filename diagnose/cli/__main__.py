"""`python -m diagnose.cli`, as the console script does."""

from diagnose.cli import main

if __name__ == "__main__":
    main()
