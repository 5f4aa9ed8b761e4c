"""Where the real public datasets live: ``$WEARBENCH_SHARED_DATA`` or ``<repo>/../shared/data``.

They are read in place, never copied into the repository (see that folder's README for
provenance and licences). A test that needs a dataset that is absent skips, naming the path.
"""

import os
from pathlib import Path

import pytest

_DEFAULT = Path(__file__).resolve().parents[2].parent / "shared" / "data"


@pytest.fixture(scope="session")
def shared_data() -> Path:
    """The shared real-data folder (skips the test when it is not there)."""
    root = Path(os.environ.get("WEARBENCH_SHARED_DATA", _DEFAULT))
    if not (root / "README.md").is_file():
        pytest.skip(f"real data folder not found at {root} (set WEARBENCH_SHARED_DATA)")
    return root
