"""Where results go: folder and file names shared by the CLI, the results and the sweeps.

Kept free of heavy imports (no numpy, no pandas) so that `import ccsim` and
`ccsim --help` stay fast (docs/performance.md, "Start-up").
"""

from __future__ import annotations

import re
from pathlib import Path

__all__ = ["DEFAULT_RESULTS", "META_FILE", "default_results_dir", "safe_dirname"]

META_FILE = "meta.json"
DEFAULT_RESULTS = Path("results")


def safe_dirname(name: str) -> str:
    """A scenario name usable as one folder name (no separators, never "." or "..")."""
    cleaned = re.sub(r"[^A-Za-z0-9._-]+", "_", name).strip("._") or "scenario"
    return cleaned


def default_results_dir(name: str) -> Path:
    """Where `ccsim run` writes the results of scenario `name` without --out: results/<name>/."""
    return DEFAULT_RESULTS / safe_dirname(name)
