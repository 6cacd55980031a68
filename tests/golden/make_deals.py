"""Write tests/golden/deals/<variant>.json: the frozen layouts of a few deals.

Run by hand (``python tests/golden/make_deals.py``) only when a new variant is
added; the tests never run it.  A deal that changes is a broken promise (SPEC
§3), so existing files must never be regenerated to make a test pass.
"""
from __future__ import annotations

import json
import re
import pathlib

from harpsolve.deals import deal_code, deal_layout
from harpsolve.rules import VARIANTS

NUMBERS = (1, 2, 5, 617, 999_999)
OUT = pathlib.Path(__file__).resolve().parent / "deals"


def golden(variant: str) -> dict:
    rules = VARIANTS[variant]
    return {
        "variant": variant,
        "deals": {
            str(n): {"code": deal_code(n), "layout": deal_layout(rules, n).to_dict()} for n in NUMBERS
        },
    }


def _compact(text: str) -> str:
    """Put each innermost list (a column, the stock) on one line, for readable diffs."""
    return re.sub(r"\[\s*([^\[\]{}]*?)\s*\]", lambda m: "[" + " ".join(m.group(1).split()) + "]", text)


def main(overwrite: bool = False) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for variant in VARIANTS:
        path = OUT / f"{variant}.json"
        if path.exists() and not overwrite:
            print(f"keep   {path.name} (exists; pass --overwrite to replace)")
            continue
        path.write_text(_compact(json.dumps(golden(variant), indent=1)) + "\n")
        print(f"wrote  {path.name}")


if __name__ == "__main__":
    import sys

    main(overwrite="--overwrite" in sys.argv)
