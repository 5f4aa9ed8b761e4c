"""The seed's preprocessing on arrays (``wearbench.tracks``) against plain pandas, in one process.

Both versions run the five steps on the same synthetic minutes: wear filter, low-variance filter
(sample variance), zero-to-NaN, hourly ``(24, 38)`` segments of the retained days, and the starts
of the retained weekly windows (stride 1, ≥ 5 retained days). The script asserts that the two give
identical retained-day masks, hourly segments (exactly equal float32) and window starts.

- ours: per user, dense ``(n_days, 19, 1440)`` float32 days + ``(n_days, 1440)`` non-wear; numpy.
- pandas: a long-format DataFrame (one row per user, day, channel, minute), written as a user would
  write it: groupby aggregations, merges, ``where``, a pivot; no per-row Python loops (which would
  only make pandas slower).

The minute data come from a simple in-script generator (plausible, not realistic: step bouts,
distance from steps, circadian HR with watch gaps and stray zeros, sleep blocks, rare workouts,
phone-less days, constant "glitch" days); the project's synthetic minute generator
(``sources/synthetic/_minutes.py``) is built separately and is not used here. Values are on
binary fractions (integers, quarters) so that sums are exact in both versions.

Time comes from a plain run of each version; peak memory from a second, untimed run under
``tracemalloc`` (numpy and pandas buffers included; the inputs, built before, are not counted).

Run: ``python benchmarks/minutes.py --users 4 --days 365`` (about 30 s on 2 cores); add
``--ours-only`` for sizes the pandas version cannot hold in memory.

``--cohort`` (e.g. ``--cohort --users 100 --days 365``, or ``--cohort --data DIR`` for an existing
minute-cohort folder) runs both sides over a minute-cohort folder written by the project's
synthetic minute generator (``sources.synthesize_minutes``): ours streams the users from the folder
(``hourly_user``, then ``weekly_windows``); the pandas reference is chunked per user as a
careful user would do with a big cohort (``pd.read_parquet`` of one user's file, then the same
long-format pandas code as above on that user). Ours reads and processes each user in day chunks
(``tracks.hourly_user``: one 32-day Parquet row group at a time; the weekly windows from the
retained flags of all days). Each side runs once, in its own fresh subprocess,
one after the other: time from that run, peak memory as the process's peak RSS (``ru_maxrss``),
also given above the RSS after imports. Both write each user's outputs to ``.npz`` files (the same
small cost on both sides), compared afterwards: retained masks and window starts exactly; the
hourly segments within 4 float32 ulp (the generator's real-valued minutes make pandas' float32
group sums and our float64 sums round differently in the last bit; the count of such cells is
printed).
"""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from wearbench.minutes import BINARY, CHANNEL_NAMES, HR, minute_user_ids, user_file
from wearbench.sources import synthesize_minutes
from wearbench.tracks import (
    VARIANCE_THRESHOLDS,
    hourly,
    hourly_user,
    retained_days,
    weekly_windows,
    zero_to_nan,
)

SUM_CHANNELS = (0, 1, 2, 3, 4, 6)


@dataclass
class User:
    x: np.ndarray  # (n_days, 19, 1440) float32
    nonwear: np.ndarray  # (n_days, 1440) bool
    days: np.ndarray  # (n_days,) int64 day numbers


def generate_user(rng: np.random.Generator, n_days: int) -> User:
    """A plausible minute year for one user (in-script generator)."""
    t = np.arange(1440)
    x = np.zeros((n_days, 19, 1440), dtype=np.float32)
    awake = (t >= 420) & (t < 1380)
    bouts = (rng.random((n_days, 1440)) < 0.03) & awake
    bouts |= np.roll(bouts, 1, axis=1) | np.roll(bouts, 2, axis=1)
    steps = np.where(bouts, rng.integers(20, 120, (n_days, 1440)), 0).astype(np.float32)
    carried = rng.random((n_days, 1)) < 0.8  # phone-less days: all-zero phone channels
    x[:, 0] = steps * carried
    x[:, 1] = np.round(x[:, 0] * 0.75 * 4) / 4
    x[:, 2] = np.where(bouts & (rng.random((n_days, 1440)) < 0.05), 1.0, 0.0) * carried
    x[:, 3] = steps
    x[:, 4] = np.round(steps * 0.75 * 4) / 4
    hr = 62 + 8 * np.sin(2 * np.pi * (t - 600) / 1440) + steps / 4 + rng.normal(0, 3, (n_days, 1440))
    x[:, 5] = np.round(hr)
    x[:, 6] = np.round((0.5 + steps / 8) * 4) / 4
    # non-wear: one gap per day of random length; watch channels NaN in it, some stray HR zeros
    start = rng.integers(0, 1440, n_days)
    length = rng.choice([30, 120, 400, 800, 1440], n_days, p=[0.4, 0.3, 0.15, 0.1, 0.05])
    nonwear = ((t[None] - start[:, None]) % 1440) < length[:, None]
    for c in (3, 4, 5, 6):
        x[:, c][nonwear] = np.nan
    x[:, 5][rng.random((n_days, 1440)) < 0.001] = 0.0
    glitch = rng.random(n_days) < 0.03  # constant-step artifact days
    x[glitch, 3] = 10.0
    # sleep: asleep block at night (some short), in bed a little longer
    onset = rng.integers(0, 120, n_days)
    dur = rng.choice([120, 300, 420, 480], n_days, p=[0.1, 0.2, 0.4, 0.3])
    asleep = ((t[None] - onset[:, None]) >= 0) & ((t[None] - onset[:, None]) < dur[:, None])
    inbed = ((t[None] - onset[:, None]) >= -20) & ((t[None] - onset[:, None]) < dur[:, None] + 20)
    no_sleep_data = rng.random(n_days) < 0.1
    x[:, 7] = asleep
    x[:, 8] = inbed
    x[no_sleep_data, 7:9] = np.nan
    # workouts: a rare walk or run, 30 min
    for c in (9, 11):
        has = rng.random(n_days) < 0.1
        w0 = rng.integers(480, 1200, n_days)
        x[:, c] = has[:, None] & (t[None] >= w0[:, None]) & (t[None] < w0[:, None] + 30)
    x[rng.random(n_days) < 0.2, 10:19] = np.nan  # workout app off
    days = np.arange(n_days, dtype=np.int64) + 19000
    keep = rng.random(n_days) > 0.05  # calendar gaps
    return User(x[keep], nonwear[keep], days[keep])


# --- ours ----------------------------------------------------------------------------------------


def ours(users: list[User]) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    out = []
    for u in users:
        retained = retained_days(u.x, u.nonwear)
        seg = hourly(zero_to_nan(u.x[retained]))
        starts, _rows = weekly_windows(u.days, retained)
        out.append((retained, seg, starts))
    return out


# --- plain pandas --------------------------------------------------------------------------------


def to_long(users: list[User]) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Long format: one row per (user, day, channel, minute); non-wear one row per (user, day, minute)."""
    frames, nw = [], []
    for i, u in enumerate(users):
        n = u.x.shape[0]
        frames.append(
            pd.DataFrame(
                {
                    "user": np.full(n * 19 * 1440, i, dtype=np.int32),
                    "day": np.repeat(u.days.astype(np.int32), 19 * 1440),
                    "channel": np.tile(np.repeat(np.arange(19, dtype=np.int8), 1440), n),
                    "minute": np.tile(np.arange(1440, dtype=np.int16), n * 19),
                    "value": u.x.reshape(-1),
                }
            )
        )
        nw.append(
            pd.DataFrame(
                {
                    "user": np.full(n * 1440, i, dtype=np.int32),
                    "day": np.repeat(u.days.astype(np.int32), 1440),
                    "nonwear": u.nonwear.reshape(-1),
                }
            )
        )
    return pd.concat(frames, ignore_index=True), pd.concat(nw, ignore_index=True)


def pandas_retained(df: pd.DataFrame, nw: pd.DataFrame) -> pd.Series:
    wear_ok = nw.groupby(["user", "day"])["nonwear"].sum() <= 720
    sub = df[df["channel"].isin(list(VARIANCE_THRESHOLDS))]
    var = sub.groupby(["user", "day", "channel"])["value"].var().rename("var").reset_index()
    var["th"] = var["channel"].map(VARIANCE_THRESHOLDS)
    nonzero = (sub["value"] != 0) & sub["value"].notna()
    var["any_nonzero"] = nonzero.groupby([sub["user"], sub["day"], sub["channel"]]).any().to_numpy()
    var["ok"] = var["var"].isna() | (var["var"] >= var["th"]) | ~var["any_nonzero"]
    var_ok = var.groupby(["user", "day"])["ok"].all()
    return (wear_ok & var_ok).rename("retained")


def pandas_zero_to_nan(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df.loc[(df["channel"] == HR) & (df["value"] == 0), "value"] = np.nan
    zero = (df["value"] == 0) | df["value"].isna()
    all_zero = zero.groupby([df["user"], df["day"], df["channel"]]).transform("all")
    df.loc[all_zero & df["channel"].isin([0, 1, 3, 4, 6]), "value"] = np.nan
    asleep = df[df["channel"] == 7].groupby(["user", "day"])["value"].sum().rename("asleep").reset_index()
    df = df.merge(asleep, on=["user", "day"], how="left")
    short = (df["asleep"] < 180) & df["channel"].isin([7, 8]) & (df["value"] == 0)
    df.loc[short, "value"] = np.nan
    return df.drop(columns="asleep")


def pandas_hourly(df: pd.DataFrame) -> pd.DataFrame:
    df = df.assign(hour=(df["minute"] // 60).astype(np.int8))
    g = df.groupby(["user", "day", "hour", "channel"])["value"]
    agg = g.agg(["sum", "mean", "max", "count"]).reset_index()
    ch = agg["channel"]
    agg["v"] = np.where(ch.isin(SUM_CHANNELS), agg["sum"], np.where(ch == HR, agg["mean"], agg["max"]))
    agg["m"] = (agg["count"] == 0).astype(np.float32)
    agg.loc[agg["m"] == 1, "v"] = 0.0
    agg.loc[ch.isin(BINARY) & (agg["m"] == 0), "v"] = (agg["max"] == 1).astype(float)
    wide = agg.pivot_table(index=["user", "day", "hour"], columns="channel", values=["v", "m"])
    return pd.concat([wide["v"], wide["m"]], axis=1).astype(np.float32)


def pandas_weeks(retained: pd.Series) -> pd.DataFrame:
    rows = []
    for user, s in retained.groupby(level="user"):
        s = s.droplevel("user")
        full = s.reindex(range(s.index.min(), s.index.max() + 1), fill_value=False)
        count = full.astype(int).rolling(7).sum()
        ends = count.index[count >= 5]
        rows.append(pd.DataFrame({"user": user, "start": ends - 6}))
    return pd.concat(rows, ignore_index=True)


def pandas_version(df: pd.DataFrame, nw: pd.DataFrame) -> tuple[pd.Series, pd.DataFrame, pd.DataFrame]:
    retained = pandas_retained(df, nw)
    if not retained.any():  # nothing to aggregate (a user with no retained day)
        return retained, pd.DataFrame(), pandas_weeks(retained)
    kept = retained[retained].reset_index()[["user", "day"]]
    sub = df.merge(kept, on=["user", "day"])
    seg = pandas_hourly(pandas_zero_to_nan(sub))
    return retained, seg, pandas_weeks(retained)


# --- a whole minute-cohort folder (>= 100 user-years), one subprocess per side -----------------


def _rss_mib() -> float:
    """Current resident set size of this process (Linux ``/proc``), MiB."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _save(out: Path, i: int, retained: np.ndarray, seg: np.ndarray, starts: np.ndarray) -> None:
    """Write one user's outputs (a few KiB a day; the same cost on both sides)."""
    np.savez(out / f"{i:05d}.npz", retained=retained.astype(bool), seg=seg.astype(np.float32), starts=starts)


def ours_folder(path: Path, out: Path) -> dict[str, Any]:
    """Ours over a minute-cohort folder: one user at a time, each read and processed in day chunks."""
    n_days, n_ret, n_weeks = 0, 0, 0
    for i, user_id in enumerate(minute_user_ids(path)):
        h = hourly_user(path, user_id)  # steps 1-4, a 32-day row group at a time
        days, retained = h.dates.astype(np.int64), h.retained
        starts, _rows = weekly_windows(days, retained)
        _save(out, i, retained, h.segments, starts)
        n_days, n_ret, n_weeks = n_days + days.size, n_ret + int(retained.sum()), n_weeks + len(starts)
    return {"days": n_days, "retained": n_ret, "weeks": n_weeks}


def read_user_pandas(file: Path) -> User:
    """One user's file as a pandas user reads it: ``read_parquet``, one array per channel column."""
    df = pd.read_parquet(file)
    x = np.stack([np.stack(list(df[name])) for name in CHANNEL_NAMES], axis=1)
    nonwear = np.stack(list(df["non_wear"])).astype(bool)
    days = pd.to_datetime(df["date"]).to_numpy().astype("datetime64[D]").astype(np.int64)
    return User(x.astype(np.float32), nonwear, days)


def pandas_folder(path: Path, out: Path) -> dict[str, Any]:
    """The plain pandas reference chunked per user: the same code as above on one user at a time."""
    n_days, n_ret, n_weeks = 0, 0, 0
    for i, user_id in enumerate(minute_user_ids(path)):
        u = read_user_pandas(user_file(path, user_id))
        df, nw = to_long([u])
        retained, seg, weeks = pandas_version(df, nw)
        r = retained.loc[0].reindex(u.days).to_numpy().astype(bool)
        block = seg.loc[0].to_numpy().reshape(-1, 24, 38) if r.any() else np.zeros((0, 24, 38))
        starts = weeks.loc[weeks["user"] == 0, "start"].to_numpy()
        _save(out, i, r, block, starts)
        n_days, n_ret, n_weeks = n_days + u.days.size, n_ret + int(r.sum()), n_weeks + len(starts)
    return {"days": n_days, "retained": n_ret, "weeks": n_weeks}


def run_side(side: str, path: Path, out: Path) -> None:
    """Child process: run one side once; print time, RSS after imports and peak RSS as JSON."""
    fn = ours_folder if side == "ours" else pandas_folder
    rss0 = _rss_mib()
    t0 = time.perf_counter()
    res = fn(path, out)
    seconds = time.perf_counter() - t0
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(json.dumps({"side": side, "seconds": seconds, "rss_start_mib": rss0, "peak_rss_mib": peak, **res}))


def compare_outputs(ours_dir: Path, pandas_dir: Path) -> tuple[int, int]:
    """Assert equal masks and starts, segments within 4 float32 ulp; (cells that differ, most ulp).

    Hourly sums differ in the last bit where pandas' groupby sum (float32, compensated) and ours
    (float64, cast once) round differently; the in-script generator's binary fractions avoid that.
    """
    files = sorted(ours_dir.glob("*.npz"))
    assert [f.name for f in files] == sorted(f.name for f in pandas_dir.glob("*.npz"))
    differ, worst = 0, 0
    for f in files:
        a, b = np.load(f), np.load(pandas_dir / f.name)
        np.testing.assert_array_equal(a["retained"], b["retained"])
        np.testing.assert_array_equal(a["starts"], b["starts"])
        x, y = a["seg"].view(np.int32).astype(np.int64), b["seg"].view(np.int32).astype(np.int64)
        assert x.shape == y.shape
        ulp = np.abs(x - y)
        differ, worst = differ + int((ulp > 0).sum()), max(worst, int(ulp.max(initial=0)))
    assert worst <= 4, f"hourly segments differ by up to {worst} ulp"
    return differ, worst


def cohort_main(args: argparse.Namespace) -> None:
    """Both sides over one minute-cohort folder, each in a fresh subprocess, run one after the other."""
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(args.data) if args.data else Path(tmp) / "minutes"
        if not args.data:
            t0 = time.perf_counter()
            synthesize_minutes(args.users, args.days, args.seed, path)
            print(f"generated {path} in {time.perf_counter() - t0:.0f} s")
        res = {}
        for side in ("ours", "pandas"):
            (Path(tmp) / side).mkdir()
            cmd = [sys.executable, __file__, "--side", side, "--data", str(path), "--out", f"{tmp}/{side}"]
            done = subprocess.run(cmd, stdout=subprocess.PIPE, text=True, check=True)
            res[side] = json.loads(done.stdout.strip().splitlines()[-1])
            print(json.dumps(res[side]), flush=True)
        differ, worst = compare_outputs(Path(tmp) / "ours", Path(tmp) / "pandas")
    a, b = res["ours"], res["pandas"]
    n_users = len(minute_user_ids(path)) if args.data else args.users
    print(f"{n_users} users, {a['days']} days present = {a['days'] / 365:.1f} user-years;")
    print(f"  {a['retained']} retained days, {a['weeks']} retained weeks; retained masks and week starts")
    print(
        f"  identical; hourly segments: {differ} of {a['retained'] * 912} cells differ, at most {worst} ulp"
    )
    for name, r in (("ours", a), ("pandas", b)):
        work = r["peak_rss_mib"] - r["rss_start_mib"]
        print(
            f"  {name:7s} {r['seconds']:8.1f} s   peak RSS {r['peak_rss_mib']:7.0f} MiB"
            f" (after imports {r['rss_start_mib']:.0f} MiB, +{work:.0f} MiB)"
        )
    wa, wb = a["peak_rss_mib"] - a["rss_start_mib"], b["peak_rss_mib"] - b["rss_start_mib"]
    ratio = b["peak_rss_mib"] / a["peak_rss_mib"]
    print(f"  speed-up {b['seconds'] / a['seconds']:.1f}x; peak RSS ours/pandas = 1/{ratio:.1f}")
    print(f"  (peak RSS above the imports: 1/{wb / wa:.1f})")


# --- harness -------------------------------------------------------------------------------------


def measure(fn: Callable[[], Any]) -> tuple[Any, float, float]:
    t0 = time.perf_counter()
    result = fn()
    seconds = time.perf_counter() - t0
    del result
    tracemalloc.start()
    result = fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return result, seconds, peak / 2**20


def check_equal(users: list[User], mine: list[Any], theirs: tuple[Any, ...]) -> None:
    retained, seg, weeks = theirs
    for i, (u, (r, s, starts)) in enumerate(zip(users, mine, strict=True)):
        np.testing.assert_array_equal(retained.loc[i].reindex(u.days).to_numpy(), r)
        block = seg.loc[i].to_numpy().reshape(-1, 24, 38)
        np.testing.assert_array_equal(block, s)
        np.testing.assert_array_equal(weeks.loc[weeks["user"] == i, "start"].to_numpy(), starts)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--users", type=int, default=4)
    ap.add_argument("--days", type=int, default=365)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--ours-only", action="store_true", help="skip pandas (sizes it cannot hold)")
    ap.add_argument("--cohort", action="store_true", help="both sides over a minute-cohort folder")
    ap.add_argument("--data", help="existing minute-cohort folder for --cohort (default: generate)")
    ap.add_argument("--side", choices=["ours", "pandas"], help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.side:
        run_side(args.side, Path(args.data), Path(args.out))
        return
    if args.cohort:
        cohort_main(args)
        return
    rng = np.random.default_rng(args.seed)
    users = [generate_user(rng, args.days) for _ in range(args.users)]
    if args.ours_only:
        _, t_ours, m_ours = measure(lambda: ours(users))
        years = args.users * args.days / 365
        print(f"{years:.1f} user-years, ours only: {t_ours:.2f} s, peak {m_ours:.0f} MiB")
        return
    n_days = sum(u.x.shape[0] for u in users)
    df, nw = to_long(users)
    dense_mb = sum(u.x.nbytes + u.nonwear.nbytes for u in users) / 2**20
    long_mb = (df.memory_usage(deep=True).sum() + nw.memory_usage(deep=True).sum()) / 2**20
    ours([users[0]])  # warm-up
    mine, t_ours, m_ours = measure(lambda: ours(users))
    theirs, t_pd, m_pd = measure(lambda: pandas_version(df, nw))
    check_equal(users, mine, theirs)
    n_ret = sum(int(r.sum()) for r, _, _ in mine)
    n_weeks = sum(len(s) for _, _, s in mine)
    print(f"{args.users} users x {args.days} days = {args.users * args.days / 365:.1f} user-years;")
    print(f"  {n_days} days present, {n_ret} retained, {n_weeks} retained weeks; outputs identical")
    print(f"  input: dense arrays {dense_mb:.0f} MiB, long DataFrames {long_mb:.0f} MiB")
    print(f"  ours:   {t_ours:8.2f} s   peak {m_ours:8.0f} MiB")
    print(f"  pandas: {t_pd:8.2f} s   peak {m_pd:8.0f} MiB")
    print(f"  speed-up {t_pd / t_ours:.1f}x, peak memory ratio ours/pandas = 1/{m_pd / m_ours:.1f}")


if __name__ == "__main__":
    main()
