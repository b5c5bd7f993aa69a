"""``python -m cardsim.coverage [--scale S] [--case NAME]... [--markdown]``: run the coverage suite."""

from __future__ import annotations

import argparse
import time

from cardsim.coverage import load_all, run, table


def main() -> None:
    ap = argparse.ArgumentParser(prog="python -m cardsim.coverage", description=__doc__)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply every case's replicates (default 1)")
    ap.add_argument("--case", action="append", help="run only this case (repeat); default: all")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--markdown", action="store_true", help="print a Markdown table (for the README)")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    a = ap.parse_args()
    if a.list:
        for name, (_, reps) in sorted(load_all().items()):
            print(f"{name} ({reps} replicates)")
        return
    t0 = time.perf_counter()
    t = table(run(a.case, a.scale, a.seed))
    if a.markdown:
        print("| interval | case | nominal | measured | MC error | replicates |")
        print("| --- | --- | ---: | ---: | ---: | ---: |")
        for r in t.iter_rows(named=True):
            print(f"| {r['interval']} | {r['case']} | {r['nominal']:.0%} | {100 * r['measured']:.1f}% | "
                  f"{100 * r['mc_error']:.1f} | {r['replicates']:,} |")
    else:
        import polars as pl

        with pl.Config(tbl_rows=-1, tbl_width_chars=160, fmt_str_lengths=60, tbl_hide_dataframe_shape=True):
            print(t)
    print(f"\n{t.height} rows in {time.perf_counter() - t0:,.0f} s")


if __name__ == "__main__":
    main()
