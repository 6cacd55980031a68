"""The progress bar of a sweep (tqdm on stderr): deals/s, ETA and the running
win-rate bounds of the whole range."""
from __future__ import annotations

import sys
from collections import Counter


WARMING = "compiling the solver (first run only)"


class Progress:
    """tqdm bar on stderr: deals/s, ETA and the running win rate of the whole range.

    Until the first worker has warmed up (:meth:`started`) the bar says :data:`WARMING`
    and shows no ETA: on a first run the workers compile the kernels for about a minute,
    and an ETA timed from the start would count that minute against every deal."""

    def __init__(self, total: int, prior: dict, enabled: bool, label: str):
        self.counts = Counter(prior.values())
        self.new = 0
        self.bar = None
        self.label = label
        self.warm = False
        if enabled:
            from tqdm import tqdm

            self.bar = tqdm(total=total, initial=len(prior), unit="deal", desc=f"{label}: {WARMING}",
                            file=sys.stderr, dynamic_ncols=True, smoothing=0.05, mininterval=0.5,
                            bar_format="{desc} {n_fmt}/{total_fmt} [{elapsed}]")
            self._postfix()

    def started(self) -> None:
        """A worker is warm: from now on the bar times deals (rate and ETA start here)."""
        if self.warm:
            return
        self.warm = True
        if self.bar is not None:
            n = self.bar.n
            self.bar.bar_format = None
            self.bar.set_description_str(self.label, refresh=False)
            self.bar.reset()  # the clock (and the rate's averages) start now ...
            self.bar.n = self.bar.last_print_n = self.bar.initial = n  # ... from the deals done so far
            self.bar.refresh()

    def update(self, status: str) -> None:
        self.counts[status] += 1
        self.new += 1
        if self.bar is not None:
            self._postfix()
            self.bar.update(1)

    def _postfix(self):
        self.bar.set_postfix_str(self.rate_text(), refresh=False)

    def rate_text(self) -> str:
        """The running rate as stats renders it: the bounds (every undecided deal lost .. won)
        first, the decided-only rate labelled, and the undecided counts."""
        won, lost = self.counts["won"], self.counts["lost"]
        if won + lost:  # a player sweep: every game ends won or lost (or in an error)
            e = self.counts["error"]
            return f"won {100 * won / (won + lost):.1f}% of {won + lost}" + (f" error {e}" if e else "")
        s, u = self.counts["solved"], self.counts["unsolvable"]
        k, e = self.counts["unknown"], self.counts["error"]
        n = s + u + k + e
        if not n:
            return "win -"
        if not k + e:
            return f"win {100 * s / n:.1f}%"
        out = f"win {100 * s / n:.1f}-{100 * (s + k + e) / n:.1f}%"
        out += f" (decided-only {100 * s / (s + u):.1f}%)" if s + u else ""
        return out + (f" unknown {k}" if k else "") + (f" error {e}" if e else "")

    def close(self):
        if self.bar is not None:
            self.bar.close()
