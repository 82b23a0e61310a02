"""atheris harness: a Filecoin verifying key in either layout `cuzk filecoin verify --vk` reads (see
fuzz/harness.py and fuzz/targets.py; RELIABILITY.md for results)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from fuzz.harness import main  # noqa: E402

if __name__ == "__main__":
    main("filecoin_vk")
