"""Check the held-out answer-support set (standard library only), with the checks every held-out set shares
(../check_set.py): 13 answers of each of the ten kinds, ids h001...h130.

Run from the repository root:  python3 data/support/heldout/check.py
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from check_set import main  # noqa: E402

if __name__ == "__main__":
    main(HERE, per_kind=13, letter="h")
