"""Deprecated name of `diagnose.progress` (the player's progress through the levels; the levels
themselves are `scenarios.levels`'). Importing it warns and gives `diagnose.progress` itself,
for one release. It is a package, not a module file, only so the rename merges as a rename.
"""

import sys
import warnings

from diagnose import progress

warnings.warn("diagnose.levels is now diagnose.progress; import that instead (the old name "
              "goes in the next release)", DeprecationWarning, stacklevel=2)
sys.modules[__name__] = progress
