"""What tests share.

Test helpers are modules of the `tests` package, imported by their absolute name
(`from tests.passes.pass_helpers import parse`); every directory of test modules is a
package (`__init__.py`), so pytest puts the repository root on `sys.path` and names test
modules `tests.<dir>.<module>`. Fixtures more than one test module uses live here.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable

import pytest
from hypothesis import settings

# every property test draws the same examples on every run (CI must not turn red on a
# newly drawn input); a test's own settings(...) inherit this, a sweep widens max_examples
settings.register_profile("qcomp", derandomize=True, database=None)
settings.load_profile("qcomp")


@pytest.fixture
def console_script() -> Callable[[str], str]:
    """`console_script(name)`: the path of an installed console script (next to this
    Python first, then on PATH); the test is skipped when there is none."""
    def find(name: str) -> str:
        path = shutil.which(name, path=os.path.dirname(sys.executable) + os.pathsep
                            + os.environ.get("PATH", ""))
        if path is None:
            pytest.skip(f"{name} is not installed")
        return path

    return find
