"""Rewrite result files with today's writer: the same rows and metadata, the same names.

    python benchmarks/rewrite_results.py results/easy-harp results/klondike-3

For the files written before a change of ``sweep.store.write_parquet`` (its encodings, its row
groups), which a sweep does not touch again once its deals are done.  Every file is read and
validated (``read_table``), written to a temporary file beside it, read back and compared with
what was read (rows, schema, metadata) before it replaces the original; a file that would
change is not replaced.  Prints each file's size and row groups before and after.  Stop any
sweep writing into the folders first (a sweep merging files meanwhile would find them changed).
"""
from __future__ import annotations

import argparse
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def rewrite(path: str) -> tuple[int, int, int, int]:
    """Rewrite one result file; (size, row groups) before and after."""
    import pyarrow.parquet as pq

    from harpsolve.sweep.store import read_table, write_file_atomic, write_parquet

    before = pq.ParquetFile(path).metadata.num_row_groups, os.path.getsize(path)
    table = read_table(path)
    after = []

    def same(tmp):
        back = pq.read_table(tmp)
        if not (back.equals(table) and back.schema.equals(table.schema, check_metadata=True)):
            raise SystemExit(f"{path}: the rewritten file reads back differently; left as it was")
        after.extend([pq.ParquetFile(tmp).metadata.num_row_groups, os.path.getsize(tmp)])

    write_file_atomic(path, lambda f: write_parquet(table, f), check=same)
    return before[1], before[0], after[1], after[0]


def main(argv=None) -> int:
    sys.path.insert(0, ROOT)
    from harpsolve.sweep.store import folder_files

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("folders", nargs="+", help="result folders (their live files are rewritten)")
    args = ap.parse_args(argv)
    for folder in args.folders:
        live, _ = folder_files(folder)
        for f in live:
            b, bg, a, ag = rewrite(f)
            print(f"{f}: {b:,} bytes, {bg} row groups -> {a:,} bytes, {ag} row groups")
    return 0


if __name__ == "__main__":
    sys.exit(main())
