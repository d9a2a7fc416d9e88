"""Check the second held-out answer-support set, heldout2 (standard library only), with the checks every held-out set shares
(../check_set.py): 10 answers of each of the ten kinds, ids k001...k100.

Run from the repository root:  python3 data/support/heldout2/check.py
"""
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from check_set import main  # noqa: E402

if __name__ == "__main__":
    main(HERE, per_kind=10, letter="k")
