"""The imputation track end to end over a minute-cohort folder (seed 004, Track 2).

:func:`run_imputation`: a seeded user-level train/test split; each method fitted on the training
users' retained days (:func:`~wearbench.tracks.prepare_user`); for every test user, approach and
day an artificial mask drawn with a generator seeded by (seed, user, approach) — so the masks do
not depend on which methods run, or in which order; each method imputes the masked days and is
scored per participant and channel (:func:`~wearbench.tracks.score_imputation`). The RESULTS
folder holds ``results.jsonl`` (one :class:`~wearbench.tracks.ImputationError` per line, sorted;
byte-identical for a seed) and ``manifest.json`` (settings, split, substitution rates, seconds
per method, content hashes).
"""

from __future__ import annotations

import difflib
import hashlib
import io
import json
import os
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from wearbench._errors import UnknownNameError, WearbenchError
from wearbench.executors import Executor, LocalExecutor
from wearbench.minutes import minute_user_ids, read_minute_manifest, read_minute_user
from wearbench.tracks._impute import BASELINE_IMPUTERS, BaselineImputer, Imputer
from wearbench.tracks._impute_score import ImputationError, fallback_values, score_imputation
from wearbench.tracks._learned import DEFAULT_EPOCHS, LEARNED_IMPUTERS, LearnedImputer
from wearbench.tracks._masking import MASKING_APPROACHES, apply_mask, draw_masks
from wearbench.tracks._pipeline import PreparedUser, prepare_user
from wearbench.tracks._results_io import read_results, write_results

#: File names inside a RESULTS folder.
RESULTS_FILE = "results.jsonl"
EXAMPLE_FILE = "example.npz"
#: Default cap on training days of a learned model in :func:`run_imputation`.
DEFAULT_MAX_TRAIN_DAYS = 1000
#: ``kind`` of a RESULTS folder's manifest.
RESULTS_KIND = "wearbench-imputation-results"


def resolve_names(names: Sequence[str], known: Sequence[str], kind: str) -> tuple[str, ...]:
    """Check names against a registry, keeping their order.

    Args:
        names: Requested names (e.g. ``["locf", "mean"]``).
        known: Registered names.
        kind: What the names are, for the error (``"imputation method"``).

    Returns:
        The names as a tuple.

    Raises:
        UnknownNameError: For a name not in ``known``, with up to three close matches.
        WearbenchError: For an empty list or a repeated name.
    """
    if not names:
        raise WearbenchError(f"no {kind} given; known: {', '.join(known)}")
    for name in names:
        if name not in known:
            raise UnknownNameError(kind, name, difflib.get_close_matches(name, list(known), n=3))
    if len(set(names)) != len(names):
        raise WearbenchError(f"{kind} named twice in {', '.join(names)}")
    return tuple(names)


def split_users(user_ids: Sequence[str], seed: int, test_share: float = 0.2) -> tuple[list[str], list[str]]:
    """A seeded user-level split: ``round(test_share * n)`` test users (at least 1, at most n - 1).

    Args:
        user_ids: Users of the cohort (≥ 2).
        seed: Seed of the permutation (``numpy.random.default_rng(seed)``).
        test_share: Share of users in the test split, in (0, 1).

    Returns:
        ``(train, test)`` user ids, each sorted.

    Raises:
        WearbenchError: With fewer than 2 users or a share outside (0, 1).
    """
    n = len(user_ids)
    if n < 2:
        raise WearbenchError(f"a train/test split needs at least 2 users; the cohort has {n}")
    if not 0.0 < test_share < 1.0:
        raise WearbenchError(f"test share must lie in (0, 1); got {test_share}")
    perm = np.random.default_rng(seed).permutation(n)
    n_test = min(max(1, round(test_share * n)), n - 1)
    test = sorted(user_ids[i] for i in perm[:n_test])
    train = sorted(user_ids[i] for i in perm[n_test:])
    return train, test


class CohortSplit(NamedTuple):
    """A minute-cohort folder's users split for a track run (unpacks as its five fields).

    Attributes:
        path: The folder.
        data_hash: Its manifest's ``content_hash`` (recorded in every RESULTS manifest).
        ids: The users taken (the folder's order, at most ``limit_users``).
        train: Training users, sorted.
        test: Test users, sorted.
    """

    path: Path
    data_hash: Any
    ids: list[str]
    train: list[str]
    test: list[str]

    @classmethod
    def of(
        cls, cohort_dir: str | os.PathLike[str], seed: int, test_share: float, limit_users: int | None
    ) -> CohortSplit:
        """Read the folder's manifest and user list and split them (:func:`split_users`)."""
        path = Path(cohort_dir)
        data_hash = read_minute_manifest(path).get("content_hash")
        ids = minute_user_ids(path)[:limit_users] if limit_users is not None else minute_user_ids(path)
        train, test = split_users(ids, seed, test_share)
        return cls(path, data_hash, ids, train, test)

    def counter(self, progress: Callable[[int, int], None] | None) -> Callable[[], None]:
        """A step function calling ``progress(users_done, len(ids))`` once per user handled."""
        done = [0]

        def step() -> None:
            done[0] += 1
            if progress is not None:
                progress(done[0], len(self.ids))

        return step


def mask_rng(seed: int, user_id: str, approach: str) -> np.random.Generator:
    """The generator of one test user's masks under one approach (independent of the method list)."""
    return np.random.default_rng([seed, zlib.crc32(user_id.encode()), zlib.crc32(approach.encode())])


@dataclass
class _Tally:
    """Masked / substituted cells per (method, approach) and seconds per method."""

    masked: dict[tuple[str, str], int] = field(default_factory=dict)
    substituted: dict[tuple[str, str], int] = field(default_factory=dict)
    fit_s: dict[str, float] = field(default_factory=dict)
    impute_s: dict[str, float] = field(default_factory=dict)

    def substitution(self, methods: Sequence[str], approaches: Sequence[str]) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for m in methods:
            out[m] = {}
            for a in approaches:
                n, k = self.masked.get((m, a), 0), self.substituted.get((m, a), 0)
                out[m][a] = {"n_masked": n, "n_substituted": k, "rate": k / n if n else 0.0}
        return out

    def add(self, other: _Tally) -> None:
        """Add ``other``'s cell counts and imputation seconds (one test user's) to these."""
        for mine, theirs in ((self.masked, other.masked), (self.substituted, other.substituted)):
            for key, n in theirs.items():
                mine[key] = mine.get(key, 0) + n
        for name, t in other.impute_s.items():
            self.impute_s[name] = self.impute_s.get(name, 0.0) + t


@dataclass(frozen=True, eq=False)
class _Days:
    """Stacked days of several users: ``days`` (n, 19, 1440) float32, ``users`` and ``dates`` (n,)."""

    days: NDArray[np.float32]
    users: NDArray[np.str_]
    dates: NDArray[np.datetime64]


def _prepared(task: tuple[Path, str, int | None]) -> PreparedUser:
    """One user's retained, zero-to-NaN'd days (an executor task: top level, picklable)."""
    path, uid, max_days = task
    return prepare_user(read_minute_user(path, uid), max_days=max_days)


def _load_days(
    path: Path, user_ids: Sequence[str], max_days: int | None, step: Callable[[], None], executor: Executor
) -> _Days:
    """Retained, zero-to-NaN'd days of several users, stacked, with their user ids and dates."""
    parts = []
    for user in executor.map(_prepared, [(path, uid, max_days) for uid in user_ids]):
        parts.append(user)
        step()
    if not parts or sum(p.days.shape[0] for p in parts) == 0:
        raise WearbenchError(f"{path}: the training users have no retained day to fit on")
    return _Days(
        np.concatenate([p.days for p in parts], axis=0),
        np.concatenate([np.full(p.days.shape[0], p.user_id) for p in parts]),
        np.concatenate([p.dates.astype("datetime64[D]") for p in parts]),
    )


@dataclass(frozen=True)
class LearnedSettings:
    """How :func:`run_imputation` trains learned models (:data:`~wearbench.tracks.LEARNED_IMPUTERS`).

    Attributes:
        epochs: Training epochs.
        max_train_days: Train on at most this many training days (a seeded choice); None = all.
        n_threads: torch CPU threads; None = torch's default.
    """

    epochs: int = DEFAULT_EPOCHS
    max_train_days: int | None = DEFAULT_MAX_TRAIN_DAYS
    n_threads: int | None = None


def _make(name: str, seed: int, learned: LearnedSettings) -> Imputer:
    if name in LEARNED_IMPUTERS:
        return LearnedImputer(name, epochs=learned.epochs, seed=seed, max_train_days=learned.max_train_days,
                              n_threads=learned.n_threads)  # fmt: skip
    return BaselineImputer(name)


def _fit(
    methods: Sequence[str], train: _Days, tally: _Tally, seed: int, learned: LearnedSettings
) -> dict[str, Imputer]:
    imputers: dict[str, Imputer] = {}
    for name in methods:
        t0 = time.perf_counter()
        imputers[name] = _make(name, seed, learned).fit(train.days, train.users, train.dates)
        tally.fit_s[name] = time.perf_counter() - t0
        tally.impute_s[name] = 0.0
    return imputers


def _score_user(
    user: PreparedUser,
    imputers: dict[str, Imputer],
    approaches: Sequence[str],
    fallback: NDArray[np.float64],
    seed: int,
    tally: _Tally,
    example: dict[str, Any] | None = None,
) -> list[ImputationError]:
    """Every method × approach on one test user's retained days.

    With ``example`` (holding ``"approach"``), the day of that approach with the most masked
    cells is recorded in it: ``truth``, ``mask``, ``imputed`` per method, ``date``, ``user``.
    """
    x = user.days
    ids = np.full(x.shape[0], user.user_id)
    dates = user.dates.astype("datetime64[D]")
    out: list[ImputationError] = []
    for approach in approaches:
        a = draw_masks(x, approach, mask_rng(seed, user.user_id, approach))
        xm = apply_mask(x, a)
        pick = example is not None and example["approach"] == approach
        d = int(np.argmax(a.reshape(a.shape[0], -1).sum(axis=1)))
        if example is not None and pick:
            example.update(user=user.user_id, date=str(dates[d]), truth=x[d], mask=a[d], imputed={})
        for name, imp in imputers.items():
            t0 = time.perf_counter()
            x_hat = imp.impute(xm, ids, dates)
            tally.impute_s[name] += time.perf_counter() - t0
            if example is not None and pick:
                example["imputed"][name] = x_hat[d]
            s = score_imputation(x, a, x_hat, ids, fallback, method=name, approach=approach)
            out.extend(s.errors)
            key = (name, approach)
            tally.masked[key] = tally.masked.get(key, 0) + s.n_masked
            tally.substituted[key] = tally.substituted.get(key, 0) + s.n_substituted
    return out


@dataclass(frozen=True, eq=False)
class _Scoring:
    """What the scoring of every test user shares (reaches each worker once)."""

    path: Path
    max_days: int | None
    imputers: dict[str, Imputer]
    approaches: tuple[str, ...]
    fallback: NDArray[np.float64]
    seed: int
    example_approach: str


@dataclass(frozen=True, eq=False)
class _Scored:
    """One test user's retained days, error records, tally and example day (``None``: no day)."""

    n_days: int
    errors: list[ImputationError]
    tally: _Tally
    example: dict[str, Any] | None


def _score_test_user(shared: _Scoring, uid: str) -> _Scored:
    """Read, prepare, mask, impute and score one test user (an executor task: top level, picklable)."""
    return _score_prepared(shared, prepare_user(read_minute_user(shared.path, uid), max_days=shared.max_days))


def _score_prepared(shared: _Scoring, user: PreparedUser) -> _Scored:
    """Mask, impute and score one test user's prepared days."""
    tally = _Tally(impute_s=dict.fromkeys(shared.imputers, 0.0))
    if not user.days.shape[0]:
        return _Scored(0, [], tally, None)
    example: dict[str, Any] = {"approach": shared.example_approach}
    s = shared
    errors = _score_user(user, s.imputers, s.approaches, s.fallback, s.seed, tally, example)
    return _Scored(int(user.days.shape[0]), errors, tally, example)


def _scored_users(scoring: _Scoring, test_ids: Sequence[str], executor: Executor) -> Iterator[_Scored]:
    """Each test user's :class:`_Scored`, in ``test_ids`` order.

    Baseline imputers travel to the workers, which do all of a user's work. Learned (torch)
    models stay here: torch in a forked worker can deadlock, so the workers only read and
    prepare the users.
    """
    if any(isinstance(imp, LearnedImputer) for imp in scoring.imputers.values()):
        users = executor.map(_prepared, [(scoring.path, uid, scoring.max_days) for uid in test_ids])
        return (_score_prepared(scoring, user) for user in users)
    return executor.map_shared(_score_test_user, scoring, test_ids)


def _results_bytes(errors: list[ImputationError], methods: Sequence[str], approaches: Sequence[str]) -> bytes:
    pos_m = {m: i for i, m in enumerate(methods)}
    pos_a = {a: i for i, a in enumerate(approaches)}
    ordered = sorted(errors, key=lambda e: (pos_m[e.method], pos_a[e.approach], e.participant, e.channel))
    lines = [json.dumps(asdict(e), sort_keys=True, allow_nan=False) for e in ordered]
    return "".join(line + "\n" for line in lines).encode()


def run_imputation(
    cohort_dir: str | os.PathLike[str],
    methods: Sequence[str],
    out: str | os.PathLike[str],
    seed: int = 0,
    *,
    test_share: float = 0.2,
    approaches: Sequence[str] = tuple(MASKING_APPROACHES),
    max_days_per_user: int | None = None,
    limit_users: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    learned: LearnedSettings | None = None,
    executor: Executor | None = None,
) -> dict[str, Any]:
    """Run the imputation track on a minute cohort and write a RESULTS folder.

    Args:
        cohort_dir: Minute-cohort folder (:func:`wearbench.minutes.write_minute_cohort`).
        methods: Imputation method names: keys of :data:`~wearbench.tracks.BASELINE_IMPUTERS`
            or :data:`~wearbench.tracks.LEARNED_IMPUTERS` (these need ``pip install -e ".[learn]"``).
        out: RESULTS folder to write (``results.jsonl``, ``manifest.json`` and ``example.npz``:
            one test day with its mask and every method's imputation); created if needed.
        seed: Fixes the split and every mask, hence every byte of ``results.jsonl``.
        test_share: Share of users in the test split.
        approaches: Masking approaches (default: all six, in the registry's order).
        max_days_per_user: Use at most this many retained days of each user (the first ones).
        limit_users: Only the first ``limit_users`` users of the folder.
        progress: Optional ``(users_done, users_total)`` callback (training users, then test users).
        learned: Epochs, training-day cap and threads of learned models (default
            :class:`LearnedSettings`); each learned model is seeded with ``seed``.
        executor: Where the users' work runs, one user per task (:mod:`wearbench.executors`;
            default serial): reading and preprocessing of the training users, and for each test
            user also masking, imputing and scoring (the fitted imputers reach each worker once;
            with a learned method these three stay here, torch being unsafe in forked workers).
            Fitting stays here. ``results.jsonl`` and ``example.npz`` are the same byte for byte
            on every executor.

    Returns:
        The manifest written to ``out/manifest.json``.

    Raises:
        UnknownNameError: For an unknown method or approach (with close matches).
        WearbenchError: For an unreadable cohort, fewer than 2 users, or no training day.
    """
    methods = resolve_names(methods, [*BASELINE_IMPUTERS, *LEARNED_IMPUTERS], "imputation method")
    approaches = resolve_names(approaches, list(MASKING_APPROACHES), "masking approach")
    split = CohortSplit.of(cohort_dir, seed, test_share, limit_users)
    path, data_hash, ids, train_ids, test_ids = split
    step = split.counter(progress)
    t_start = time.perf_counter()
    runner = executor if executor is not None else LocalExecutor(1)
    train = _load_days(path, train_ids, max_days_per_user, step, runner)
    tally = _Tally()
    imputers = _fit(methods, train, tally, seed, learned or LearnedSettings())
    fallback = fallback_values(train.days)
    errors: list[ImputationError] = []
    test_days: dict[str, int] = {}
    example: dict[str, Any] = {
        "approach": "temporal_slice" if "temporal_slice" in approaches else approaches[0]
    }
    scoring = _Scoring(
        path, max_days_per_user, imputers, tuple(approaches), fallback, seed, example["approach"]
    )
    for uid, scored in zip(test_ids, _scored_users(scoring, test_ids, runner), strict=True):
        test_days[uid] = scored.n_days
        errors.extend(scored.errors)
        tally.add(scored.tally)
        if scored.example is not None and "truth" not in example:
            example.update(scored.example)  # the first test user with retained days
        step()
    blob = _results_bytes(errors, methods, approaches)
    manifest: dict[str, Any] = {
        "kind": RESULTS_KIND,
        "seed": seed,
        "methods": list(methods),
        "approaches": list(approaches),
        "test_share": test_share,
        "max_days_per_user": max_days_per_user,
        "limit_users": limit_users,
        "data": {"path": str(path), "content_hash": data_hash},
        "split": {
            "n_users": len(ids),
            "n_train": len(train_ids),
            "n_test": len(test_ids),
            "train_days": int(train.days.shape[0]),
            "test_days": sum(test_days.values()),
            "train": train_ids,
            "test": test_ids,
            "test_without_days": [u for u, n in test_days.items() if n == 0],
        },
        "substitution": tally.substitution(methods, approaches),
        "seconds": {m: {"fit": tally.fit_s[m], "impute": tally.impute_s[m]} for m in methods},
        "seconds_total": time.perf_counter() - t_start,
        "results": {"file": RESULTS_FILE, "rows": len(errors), "sha256": hashlib.sha256(blob).hexdigest()},
        "learned": {m: imp.settings() for m, imp in imputers.items() if isinstance(imp, LearnedImputer)},
    }
    npz = _example_bytes(example, methods) if "truth" in example else None
    if npz is not None:
        manifest["example"] = {"file": EXAMPLE_FILE, "sha256": hashlib.sha256(npz).hexdigest()}
    files = {RESULTS_FILE: blob} if npz is None else {RESULTS_FILE: blob, EXAMPLE_FILE: npz}
    write_results(Path(out), files, manifest, "imputation")
    return manifest


def _example_bytes(example: dict[str, Any], methods: Sequence[str]) -> bytes:
    """``example.npz`` bytes, as ``np.savez_compressed`` writes but with a fixed zip date (byte-identical).

    Arrays: ``truth`` (19, 1440) float32, ``mask`` (19, 1440) bool, ``imputed`` (n_methods, 19,
    1440) float32 in ``methods`` order, ``methods`` (n_methods,) str, ``user``, ``date`` (ISO) and
    ``approach`` 0-d str.
    """
    arrays = {
        "truth": np.asarray(example["truth"], dtype=np.float32),
        "mask": np.asarray(example["mask"], dtype=bool),
        "imputed": np.stack([np.asarray(example["imputed"][m], dtype=np.float32) for m in methods]),
        "methods": np.array(list(methods), dtype=np.str_),
        "user": np.array(example["user"], dtype=np.str_),
        "date": np.array(example["date"], dtype=np.str_),
        "approach": np.array(example["approach"], dtype=np.str_),
    }
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for key, arr in arrays.items():
            info = zipfile.ZipInfo(f"{key}.npy", date_time=(1980, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            with zf.open(info, "w") as f:
                np.save(f, arr, allow_pickle=False)  # the .npy format, as np.savez writes it
    return buf.getvalue()


def read_imputation_results(path: str | os.PathLike[str]) -> tuple[dict[str, Any], list[ImputationError]]:
    """Read a RESULTS folder written by :func:`run_imputation`.

    Args:
        path: The RESULTS folder.

    Returns:
        ``(manifest, errors)``: the manifest and one :class:`ImputationError` per results line.

    Raises:
        WearbenchError: Naming the file (and line), if the folder is not a RESULTS folder, a line
            is not a complete error record, or the file's SHA-256 differs from the manifest.
    """
    return read_results(
        path,
        kind=RESULTS_KIND,
        file=RESULTS_FILE,
        record=ImputationError,
        noun="imputation",
        command="track impute",
        record_noun="an imputation error record",
    )
