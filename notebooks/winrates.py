# ---
# jupyter:
#   jupytext:
#     formats: ipynb,py:percent
#     text_representation:
#       extension: .py
#       format_name: percent
#       format_version: '1.3'
#       jupytext_version: 1.19.6
#   kernelspec:
#     display_name: Python 3
#     language: python
#     name: python3
# ---

# %% [markdown]
# # Win rates, rules switches and difficulty
#
# This notebook reads the Parquet result files that `harpsolve sweep` writes
# (`results/` by default) and shows
#
# 1. the winnable rate of each variant with its 95 % Wilson interval, and the
#    bounds that count unknown deals as lost / won;
# 2. how single rules switches (take-back, draw count, pass limit, the
#    king-run rule) move the rate, from small sweeps it runs itself;
# 3. how hard the deals are: nodes and seconds per deal, solution lengths;
# 4. the hardest deals;
# 5. what a player who does not see the hidden cards wins (`sweep --play`),
#    beside the thoughtful rate, and how many sampled worlds are worth it.
#
# Settings come from environment variables, so CI can run it on small data:
#
# | variable | meaning | default |
# |---|---|---|
# | `HARPSOLVE_RESULTS` | result files or folders, `:`-separated | `results/` of the repository |
# | `HARPSOLVE_SWITCHES` | folder for the rules-switch sweeps (resumable: a rerun reuses them) | `$TMPDIR/harpsolve-switches` |
# | `HARPSOLVE_QUICK` | `1`: tiny switch sweeps (CI) | `0` |
# | `HARPSOLVE_FIGURES` | where the PNGs go | `notebooks/figures/` |
#
# The Python source of this notebook is `notebooks/winrates.py` (jupytext
# percent format, paired with `winrates.ipynb`); the committed PNGs in
# `notebooks/figures/` are its rendered output.

# %%
import os
import tempfile
import time
from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # headless; the figures are shown inline below and saved as PNGs
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
from IPython.display import Image, display

from harpsolve.stats import summarize
from harpsolve.sweep import ResultFileError, best_rows, load_results, sweep


def _repo_root() -> Path:
    here = Path.cwd().resolve()
    for d in (here, *here.parents):
        if (d / "pyproject.toml").exists() and (d / "harpsolve").is_dir():
            return d
    return here


ROOT = _repo_root()
RESULTS = [p for p in os.environ.get("HARPSOLVE_RESULTS", str(ROOT / "results")).split(os.pathsep) if p]
SWITCHES = Path(os.environ.get("HARPSOLVE_SWITCHES") or Path(tempfile.gettempdir()) / "harpsolve-switches")
QUICK = os.environ.get("HARPSOLVE_QUICK", "0") == "1"
FIGURES = Path(os.environ.get("HARPSOLVE_FIGURES") or ROOT / "notebooks" / "figures")
FIGURES.mkdir(parents=True, exist_ok=True)
pd.set_option("display.width", 120)


def show(fig, name):
    """Save a figure as FIGURES/name and show it inline."""
    path = FIGURES / name
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    display(Image(filename=str(path)))


print("results:", RESULTS, "| switch sweeps:", SWITCHES, "| quick:", QUICK, "| figures:", FIGURES)

# %% [markdown]
# ## The result files
#
# Every row is one deal under one rules set and budget; a deal solved twice
# counts once (`best_rows`: a decided row beats an unknown one, a bigger
# budget beats a smaller one).  Missing folders are skipped, so the notebook
# runs on whatever is there.

# %%
found = [p for p in RESULTS if Path(p).exists()]
try:
    results = load_results(found) if found else None
except ResultFileError as e:
    print("no readable result files:", e)
    results = None
if results is None or results.frame.empty:
    frame = pd.DataFrame(columns=["variant", "rules", "deal", "status", "nodes", "seconds", "solution_length"])
    print("no results yet: run e.g. `harpsolve sweep klondike-3 1-1000 --out results/klondike-3`")
else:
    frame = best_rows(results.frame)
    print(f"{len(results.files)} files, {len(results.frame):,} rows, {len(frame):,} distinct deals")
frame.groupby(["rules", "status"]).size().unstack(fill_value=0) if len(frame) else frame

# %% [markdown]
# ## 1. Winnable rate per variant (95 % Wilson intervals)
#
# The dot is solved / (solved + unsolvable) with its Wilson interval; the
# grey bar runs from the lower bound (every unknown deal lost) to the upper
# bound (every unknown deal won), each with its own interval: the true rate
# lies inside the bar with at least 95 % confidence whatever the unknown deals
# are.

# %%
def rate_table(groups):
    """The solver's groups of ``summarize`` (the players' come in section 5)."""
    rows = []
    for g in groups:
        if g.get("kind") == "player":
            continue
        rows.append(dict(group=g["group"], deals=g["deals"], solved=g["solved"], unsolvable=g["unsolvable"],
                         unknown=g["unknown"], rate=g["rate"], ci_lo=g["ci"][0], ci_hi=g["ci"][1],
                         bound_lo=g["lower_ci"][0], bound_hi=g["upper_ci"][1]))
    return pd.DataFrame(rows)


def percent_rows(ax, labels, ns, xlabel):
    """The frame both rate figures share: one row a label, 0-100 % across, each row's n right of 100 %
    (clear of a point and its caps at 100 %)."""
    for i, n in enumerate(ns):
        ax.annotate(f"n={n:,}", (103, i), va="center", fontsize="small", color="0.4")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlim(0, 121)
    ax.set_xticks(range(0, 101, 20))
    ax.set_ylim(-0.6, len(labels) - 0.4)
    ax.set_xlabel(xlabel)


def rate_plot(table, title, name):
    fig, ax = plt.subplots(figsize=(7.5, 0.55 * len(table) + 1.6))
    for i, r in enumerate(table.itertuples()):
        ax.plot([100 * r.bound_lo, 100 * r.bound_hi], [i, i], color="0.82", lw=9, solid_capstyle="butt",
                label="bounds: unknown lost .. won" if i == 0 else None)
        if r.rate == r.rate and r.rate is not None:
            ax.errorbar([100 * r.rate], [i], xerr=[[100 * (r.rate - r.ci_lo)], [100 * (r.ci_hi - r.rate)]],
                        fmt="o", color="C0", capsize=4, label="winnable, 95% Wilson CI" if i == 0 else None)
    percent_rows(ax, list(table["group"]), table["deals"], "winnable deals (%)")
    ax.set_title(title)
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.18), ncol=2, fontsize="small", frameon=False)
    show(fig, name)


if len(frame):
    by_variant = rate_table(summarize(results, by="variant"))
    rate_plot(by_variant, "Winnable rate per variant", "win_rate_by_variant.png")
    display(by_variant.round(4))
else:
    print("nothing to plot")

# %% [markdown]
# ## 2. Rules switches
#
# One rules field at a time, on the same deals, at a small node budget
# (sweeps into `HARPSOLVE_SWITCHES`; they resume, so a rerun is quick).
# With a small budget many deals stay unknown: read the bars (bounds), not
# only the dots.  Published figures need the big sweeps in `results/`.

# %%
if QUICK:
    N_DEALS, NODES = 8, 5_000
else:
    N_DEALS, NODES = 40, 50_000
EXPERIMENTS = [
    # (variant, overrides, switch)
    ("klondike-1", [], "baseline"),
    ("klondike-1", ["takeback=false"], "take-back"),
    ("klondike-1", ["draw=3"], "draw count"),
    ("klondike-1", ["passes=3"], "pass limit"),
    ("klondike-1", ["passes=1"], "pass limit"),
    ("easy-harp", [], "baseline"),
    ("easy-harp", ["king_runs=false"], "king-run rule"),
    ("easy-harp", ["takeback=false"], "take-back"),
]
if QUICK:
    EXPERIMENTS = [e for e in EXPERIMENTS if e[0] == "klondike-1"][:3]

t0 = time.perf_counter()
switch_rows = []
for variant, overrides, switch in EXPERIMENTS:
    folder = SWITCHES / ("-".join([variant, *overrides]).replace("=", "_") + f"-{NODES}")
    s = sweep(variant, f"1-{N_DEALS}", str(folder), overrides, {"max_nodes": NODES}, workers=min(2, os.cpu_count() or 1),
              progress=False)
    g = summarize(load_results([str(folder)]), by="rules")[0]
    switch_rows.append(dict(variant=variant, switch=switch, rules=g["rules"], group=g["rules"], deals=g["deals"],
                            solved=g["solved"], unsolvable=g["unsolvable"], unknown=g["unknown"], rate=g["rate"],
                            ci_lo=g["ci"][0], ci_hi=g["ci"][1], bound_lo=g["lower_ci"][0],
                            bound_hi=g["upper_ci"][1]))
switches = pd.DataFrame(switch_rows)
print(f"{len(EXPERIMENTS)} sweeps of {N_DEALS} deals at {NODES:,} nodes: {time.perf_counter() - t0:.1f} s")
rate_plot(switches, f"Rules switches (deals 1-{N_DEALS}, {NODES:,} nodes per deal)", "rules_switches.png")
switches[["rules", "switch", "deals", "solved", "unsolvable", "unknown", "rate", "ci_lo", "ci_hi"]].round(4)

# %% [markdown]
# ## 3. Difficulty: nodes and seconds per deal, solution lengths
#
# Log-scale histograms per rules set; unknown deals sit at their node
# budget (the spike on the right of the node plot).

# %%
def log_hist(ax, data, col, label_col="rules"):
    vals = data[col].to_numpy(float)
    vals = vals[vals > 0]
    if not len(vals):
        return
    bins = np.logspace(np.log10(vals.min()), np.log10(vals.max() * 1.001), 40)
    for name, g in data.groupby(label_col):
        v = g[col].to_numpy(float)
        ax.hist(v[v > 0], bins=bins, histtype="step", lw=1.5, label=name)
    ax.set_xscale("log")


diff = frame[frame["status"].isin(["solved", "unsolvable", "unknown"])] if len(frame) else frame
if len(diff):
    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    log_hist(axes[0], diff, "nodes")
    axes[0].set_xlabel("search nodes per deal")
    axes[0].set_ylabel("deals")
    log_hist(axes[1], diff, "seconds")
    axes[1].set_xlabel("seconds per deal")
    axes[0].legend(fontsize="small")
    show(fig, "difficulty.png")
    q = diff.groupby("rules")[["nodes", "seconds"]].quantile([0.5, 0.9, 0.99]).unstack()
    display(q)

# %%
solved = frame[frame["status"] == "solved"] if len(frame) else frame
if len(solved):
    fig, ax = plt.subplots(figsize=(7.5, 4))
    log_hist(ax, solved.dropna(subset=["solution_length"]), "solution_length")
    ax.set_xlabel("solution length (SPEC move tokens, draws included; log scale)")
    ax.set_ylabel("deals")
    ax.legend(fontsize="small")
    show(fig, "solution_length.png")
    display(solved.groupby("rules")["solution_length"].describe(percentiles=[0.5, 0.9]).round(1))

# %% [markdown]
# ## 4. The hardest deals
#
# The decided deals that took the most search nodes, per rules set (the
# ones to look at when the solver is tuned), and the unknown ones.

# %%
if len(frame):
    decided = frame[frame["status"].isin(["solved", "unsolvable"])]
    hardest = (decided.sort_values(["nodes", "deal"], ascending=[False, True]).groupby("rules").head(5)
               [["rules", "deal", "status", "nodes", "seconds", "solution_length"]])
    display(hardest.reset_index(drop=True))
    unknown = frame[frame["status"] == "unknown"].groupby("rules")["deal"].apply(lambda d: list(d)[:15])
    display(unknown.to_frame("unknown deals (first 15)"))

# %% [markdown]
# ## 5. Playing without peeking
#
# The player folders (`sweep --play`) hold games, not verdicts: `won` or
# `lost` by a player who sees only the cards in view (README: "Playing
# without peeking"). Each player's rate with its 95 % Wilson interval, and,
# where the solver's rows of the same rules cover the same deals, the
# thoughtful rate of those deals (its bounds when some are undecided): the
# gap is what not seeing the cards costs.

# %%
def player_table(groups):
    """The players' groups of ``summarize``: games, wins, the Wilson interval, and the solver's
    bounds on the same deals (NaN where the solver's files have none of them)."""
    rows = []
    for g in groups:
        if g.get("kind") != "player":
            continue
        t = g["thoughtful"]
        rows.append(dict(rules=g["group"], player=g["policy"].split()[0], settings=g["policy"], games=g["games"],
                         won=g["won"], rate=g["rate"], ci_lo=g["ci"][0], ci_hi=g["ci"][1],
                         solver_deals=t["deals"] if t else 0,
                         thoughtful_lo=t["bounds"][0] if t else float("nan"),
                         thoughtful_hi=t["bounds"][1] if t else float("nan")))
    return pd.DataFrame(rows)


def short_settings(label):
    """A player's row name in the figure: its policy and the settings that are not the defaults
    (so that two settings of one player on one game read apart)."""
    policy, *fields = label.split()
    common = ("samples=10", "max_nodes=2000", "seed=0", "max_moves=5000")
    return " ".join([policy] + [f for f in fields if f not in common])


players = player_table(summarize(results)) if len(frame) else pd.DataFrame()
if len(players):
    fig, ax = plt.subplots(figsize=(9, 0.6 * len(players) + 1.8))
    for i, r in enumerate(players.itertuples()):
        if r.thoughtful_lo == r.thoughtful_lo:
            ax.plot([100 * r.thoughtful_lo, 100 * r.thoughtful_hi], [i, i], color="0.82", lw=9,
                    solid_capstyle="butt", label="thoughtful (solver), same deals" if i == 0 else None)
        ax.errorbar([100 * r.rate], [i], xerr=[[100 * (r.rate - r.ci_lo)], [100 * (r.ci_hi - r.rate)]], fmt="o",
                    color="C1", capsize=4, label="player, 95% Wilson CI" if i == 0 else None)
    percent_rows(ax, [f"{r.rules} {short_settings(r.settings)}" for r in players.itertuples()], players["games"],
                 "games won (%)")
    # two title lines and a legend just under the x label: the long y labels leave the axes narrow,
    # and on this tall figure an offset in axes fractions is a large gap
    ax.set_title(f"Players who do not see the hidden cards\n({len(players)} players)")
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.05), ncol=2, fontsize="small", frameon=False)
    show(fig, "players.png")
    display(players.drop(columns=["thoughtful_lo", "thoughtful_hi"]).round(4))
else:
    print("no player folders among the results")

# %% [markdown]
# ### How many sampled worlds are worth it
#
# `results/players-samples-VARIANT.csv` is the table of
# `benchmarks/bench_player.py … --samples 5,10,20,40,80 --csv …` (the command
# is in `benchmarks/README.md`): the same deals played at each sample count.
# Wins grow with the samples; the time a game grows with them in
# proportion.

# %%
curves = sorted((ROOT / "results").glob("players-samples-*.csv"))
for path in curves:
    curve = pd.read_csv(path).sort_values("samples")
    fig, ax = plt.subplots(figsize=(7.5, 4))
    for policy, c in curve.groupby("policy"):
        ax.errorbar(c["samples"], 100 * c["rate"],
                    yerr=[100 * (c["rate"] - c["ci_low"]), 100 * (c["ci_high"] - c["rate"])],
                    fmt="o-", capsize=4, label=f"{policy}: games won, 95% CI")
    ax.set_xscale("log", base=2)
    ax.set_xticks(curve["samples"].unique(), [str(v) for v in curve["samples"].unique()])
    ax.set_xlabel("sampled worlds per decision")
    ax.set_ylabel("games won (%)")
    ax2 = ax.twinx()
    ax2.plot(curve["samples"], curve["s_median"], "s--", color="0.5", label="seconds a game (median)")
    ax2.set_ylabel("seconds a game (median)")
    variant, deals, n = curve["variant"].iloc[0], curve["deals"].iloc[0], int(curve["games"].iloc[0])
    ax.set_title(f"{variant}: samples versus wins (deals {deals}, n={n} games per point)")
    h1, l1 = ax.get_legend_handles_labels()
    h2, l2 = ax2.get_legend_handles_labels()
    ax.legend(h1 + h2, l1 + l2, loc="upper left", fontsize="small")
    show(fig, f"samples_{variant}.png")
    display(curve[["policy", "samples", "games", "won", "rate", "ci_low", "ci_high", "s_median", "solves_median"]]
            .round(4))
if not curves:
    print("no samples-versus-rate table under results/")
