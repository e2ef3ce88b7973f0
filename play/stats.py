"""The statistics of `tessera simulate`, all from scipy.stats (nothing hand-derived).

- a mean: Student's t 95% confidence interval (`scipy.stats.t.interval`);
- a rate (wins, ties): the Wilson score 95% interval (`scipy.stats.binomtest(...).proportion_ci`);
- a mean of bounded values (a share of the game, which lies in [0, 1]) or of counts (lead changes,
  captures, times a rule fired, which are never below 0): the percentile bootstrap's 95% interval
  (`scipy.stats.bootstrap`, a fixed generator, so the same games give the same interval), which
  stays within the values seen, hence within their bounds even for a few games (a t interval of
  3 shares can reach below 0 and above 1);
- a difference between two rule sets (`--against`): both play the same seeds, so
  each game is a pair; the paired t-test (`scipy.stats.ttest_rel`) gives the
  mean difference's 95% interval and a p-value, for win rates too (each game's
  difference is -1, 0 or 1); the p-values of one comparison are adjusted for
  testing many measures at once by Benjamini-Hochberg
  (`scipy.stats.false_discovery_control`), and a difference is called
  significant when its adjusted p-value is below 0.05.

Sequences whose values are all equal have no spread: their interval is the
value itself, and a paired difference that is the same non-zero number in
every game is significant (p = 0), one that is zero in every game is not (p = 1).
"""
from __future__ import annotations

import math
from typing import Sequence

LEVEL = 0.95
ALPHA = 0.05


def _r(x: float, nd: int = 4) -> float:
    return round(float(x), nd)


def mean_ci(xs: Sequence[float]) -> dict:
    """{"mean", "low", "high", "n"}: a t interval; None bounds when there are fewer than 2 values."""
    import numpy as np
    from scipy import stats

    n = len(xs)
    if n == 0:
        return {"mean": None, "low": None, "high": None, "n": 0}
    a = np.asarray(xs, dtype=float)
    m = float(a.mean())
    if n < 2:
        return {"mean": _r(m), "low": None, "high": None, "n": n}
    sd = float(a.std(ddof=1))
    if sd == 0.0:
        return {"mean": _r(m), "low": _r(m), "high": _r(m), "n": n}
    lo, hi = stats.t.interval(LEVEL, n - 1, loc=m, scale=sd / math.sqrt(n))
    return {"mean": _r(m), "low": _r(lo), "high": _r(hi), "n": n}


def rate_ci(k: int, n: int) -> dict:
    """{"rate", "low", "high", "count", "n"}: the Wilson score interval of k successes in n."""
    from scipy import stats

    if n == 0:
        return {"rate": None, "low": None, "high": None, "count": k, "n": 0}
    ci = stats.binomtest(k, n).proportion_ci(confidence_level=LEVEL, method="wilson")
    return {"rate": _r(k / n), "low": _r(ci.low), "high": _r(ci.high), "count": k, "n": n}


def paired(ours: Sequence[float], ref: Sequence[float]) -> dict:
    """Mean of ours - ref over paired games, its t interval and the paired t-test's p-value."""
    import numpy as np
    from scipy import stats

    a = np.asarray(ours, dtype=float)
    b = np.asarray(ref, dtype=float)
    n = len(a)
    d = a - b
    diff = float(d.mean()) if n else 0.0
    if n < 2:
        return {"diff": _r(diff), "low": None, "high": None, "p": None, "n": n}
    if float(d.std(ddof=1)) == 0.0:
        return {"diff": _r(diff), "low": _r(diff), "high": _r(diff), "p": 0.0 if diff != 0 else 1.0, "n": n}
    res = stats.ttest_rel(a, b)
    ci = res.confidence_interval(LEVEL)
    return {"diff": _r(diff), "low": _r(ci.low), "high": _r(ci.high), "p": float(res.pvalue), "n": n}


def adjust(rows: list[dict]) -> None:
    """Add "p_adjusted" (Benjamini-Hochberg over the rows with a p-value) and "significant"."""
    from scipy import stats

    idx = [i for i, r in enumerate(rows) if r.get("p") is not None]
    adj = stats.false_discovery_control([rows[i]["p"] for i in idx], method="bh") if idx else []
    for i, q in zip(idx, adj):
        rows[i]["p_adjusted"] = float(q)
        rows[i]["significant"] = bool(q < ALPHA)
    for r in rows:
        r.setdefault("p_adjusted", None)
        r.setdefault("significant", False)
        for k in ("p", "p_adjusted"):
            if r[k] is not None:
                r[k] = float(f"{r[k]:.4g}")


def sd_ci(xs: Sequence[float]) -> dict:
    """{"sd", "low", "high", "n"}: the sample standard deviation and its 95% interval from the
    chi-square distribution of (n - 1) s^2 / sigma^2 (`scipy.stats.chi2.ppf`; exact for normal
    data, approximate otherwise)."""
    import numpy as np
    from scipy import stats

    n = len(xs)
    if n < 2:
        return {"sd": None if n == 0 else 0.0, "low": None, "high": None, "n": n}
    sd = float(np.asarray(xs, dtype=float).std(ddof=1))
    a = (1 - LEVEL) / 2
    lo = sd * math.sqrt((n - 1) / stats.chi2.ppf(1 - a, n - 1))
    hi = sd * math.sqrt((n - 1) / stats.chi2.ppf(a, n - 1))
    return {"sd": _r(sd), "low": _r(lo), "high": _r(hi), "n": n}


BOOTSTRAP_RESAMPLES = 2000
BOOTSTRAP_SEED = 0


def bootstrap_mean_ci(xs: Sequence[float]) -> dict:
    """{"mean", "low", "high", "n"}: the percentile bootstrap interval of the mean (scipy.stats.bootstrap),
    which lies within the smallest and largest value seen: for shares in [0, 1] and for counts (>= 0).
    Fewer than 2 values: None bounds; all equal: the value itself."""
    import numpy as np
    from scipy import stats

    n = len(xs)
    if n == 0:
        return {"mean": None, "low": None, "high": None, "n": 0}
    a = np.asarray(xs, dtype=float)
    m = float(a.mean())
    if n < 2:
        return {"mean": _r(m), "low": None, "high": None, "n": n}
    if float(a.min()) == float(a.max()):
        return {"mean": _r(m), "low": _r(m), "high": _r(m), "n": n}
    res = stats.bootstrap((a,), np.mean, confidence_level=LEVEL, n_resamples=BOOTSTRAP_RESAMPLES,
                          method="percentile", random_state=np.random.default_rng(BOOTSTRAP_SEED))
    lo = max(float(res.confidence_interval.low), float(a.min()))  # within the values seen, as the percentile
    hi = min(float(res.confidence_interval.high), float(a.max()))  # interval is (guarding its rounding)
    return {"mean": _r(m), "low": _r(lo), "high": _r(hi), "n": n}


def count_mean_ci(xs: Sequence[float]) -> dict:
    """The mean of counts per game (never below 0) with its bootstrap interval (`bootstrap_mean_ci`)."""
    return bootstrap_mean_ci(xs)


def share_mean_ci(xs: Sequence[float]) -> dict:
    """The mean of shares (each in [0, 1]) with its bootstrap interval (`bootstrap_mean_ci`)."""
    return bootstrap_mean_ci(xs)


def count_ci(xs: Sequence[float]) -> tuple:
    """(mean, low, high) of `count_mean_ci`."""
    m = count_mean_ci(xs)
    return m["mean"], m["low"], m["high"]


def bounded_mean_ci(xs: Sequence[float], low: float, high: float) -> tuple:
    """(mean, low, high) of the mean of values in [low, high] (`bootstrap_mean_ci`), the bounds held."""
    m = bootstrap_mean_ci([min(max(x, low), high) for x in xs])
    return m["mean"], m["low"], m["high"]
