"""The chunked build: null groups pooled by hand, packed item lines, shards and chunk sizes.

A cohort of 12 users with null groups of 5 users (patched down from 256) exercises the pooled
null test on three groups; the artifact must not depend on the chunk size, the executor, or
whether the cohort is read from shards.
"""

import json
import math
from dataclasses import replace
from pathlib import Path

import pytest

import wearbench
from wearbench._errors import WearbenchError
from wearbench.bench import build_benchmark, stable_rng
from wearbench.bench._assemble import assemble
from wearbench.bench._generate import UserTask, generate_user, type_instances
from wearbench.bench._packed import OptionInterner, Packed, item_line, pack
from wearbench.bench._pool import build_pool, merge_pool
from wearbench.bench._stages import NullPart, Shared, Users, null_rng, pool_sample, pooled_null, scan
from wearbench.cohort import Cohort, contexts_from_cohort, save_cohort
from wearbench.executors import LocalExecutor
from wearbench.questions import question_type

TYPES = ["trend", "coupling_lag", "conditional_effect", "strongest_pair", "cohort_position"]


def files(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def cohort() -> Cohort:
    return wearbench.synth(12, 150, seed=5, reference_users=200)


@pytest.fixture
def small_groups(monkeypatch: pytest.MonkeyPatch) -> int:
    monkeypatch.setattr("wearbench.bench._build.NULL_GROUP_USERS", 5)
    return 5


def test_pooled_null_by_hand() -> None:
    a = NullPart(0, {"f": {"null": 0.5, "observed": 0.25, "windows": 8, "passes": 2, "hits": 3, "tested": 5}})
    b = NullPart(1, {"f": {"null": 0.1, "observed": 0.5, "windows": 4, "passes": 2, "hits": 0, "tested": 9}})
    got = pooled_null([b, a])["f"]
    # observed = (2 + 2) / (8 + 4); null = (3 + 0 + 1) / (5 + 9 + 1)
    assert got["observed"] == pytest.approx(4 / 12)
    assert got["null"] == pytest.approx(4 / 15)
    assert got["fdr"] == pytest.approx((4 / 15) / (4 / 12))


def test_one_group_is_taken_as_it_is_and_nothing_passing_is_infinite() -> None:
    only = pooled_null([NullPart(0, {"f": {"null": 0.3, "observed": 0.6}})])["f"]
    assert only == {"null": 0.3, "observed": 0.6, "fdr": 0.5}
    zero = pooled_null([NullPart(0, {"g": {"null": 0.1, "observed": 0.0}})])["g"]
    assert math.isinf(zero["fdr"])


def test_groups_without_counts_cannot_be_pooled() -> None:
    parts = [
        NullPart(0, {"f": {"null": 0.1, "observed": 0.5}}),
        NullPart(1, {"f": {"null": 0.1, "observed": 0.5}}),
    ]
    with pytest.raises(WearbenchError, match="pattern family f: null results without counts"):
        pooled_null(parts)


def test_group_zero_uses_the_whole_cohort_stream() -> None:
    assert null_rng(3, "trend", 0).random() == stable_rng(3, "null-test", "trend").random()
    assert null_rng(3, "trend", 1).random() != stable_rng(3, "null-test", "trend").random()


def test_the_build_pools_the_groups_null_counts(cohort: Cohort, small_groups: int, tmp_path: Path) -> None:
    result = build_benchmark(cohort, tmp_path / "b", types=TYPES, seed=4)
    contexts = list(contexts_from_cohort(cohort).values())
    groups = [contexts[i : i + small_groups] for i in range(0, len(contexts), small_groups)]
    assert [len(g) for g in groups] == [5, 5, 2]
    counts: dict[str, list[float]] = {}
    for g, members in enumerate(groups):
        for name in ("coupling_lag", "conditional_effect", "strongest_pair"):
            qt = question_type(name)()
            for fam, v in qt.null_statistics(members, null_rng(4, name, g)).items():
                c = counts.setdefault(fam, [0, 0, 0, 0])
                for i, k in enumerate(("windows", "passes", "hits", "tested")):
                    c[i] += v[k]
    got = result.stats["null_fdr"]
    assert set(got) == set(counts)
    for fam, (windows, passes, hits, tested) in counts.items():
        assert got[fam]["observed"] == pytest.approx(passes / max(windows, 1)), fam
        assert got[fam]["null"] == pytest.approx((hits + 1) / (tested + 1)), fam


def test_chunks_executors_and_shards_give_the_same_artifact(
    cohort: Cohort, small_groups: int, tmp_path: Path
) -> None:
    build_benchmark(cohort, tmp_path / "one", types=TYPES, seed=4, chunk_users=12)
    build_benchmark(cohort, tmp_path / "tiny", types=TYPES, seed=4, chunk_users=1, executor=LocalExecutor(2))
    save_cohort(cohort, tmp_path / "shards", shard_users=3)
    build_benchmark(tmp_path / "shards", tmp_path / "sharded", types=TYPES, seed=4, chunk_users=2, workers=2)
    one, tiny, sharded = files(tmp_path / "one"), files(tmp_path / "tiny"), files(tmp_path / "sharded")
    assert one == tiny
    assert one.keys() == sharded.keys()
    differ = {name for name in one if one[name] != sharded[name]}
    assert differ == {"manifest.json", "datasheet.md"}  # the sharded folder's content hash
    a = json.loads(one["manifest.json"])
    b = json.loads(sharded["manifest.json"])
    assert {k for k in a if a[k] != b[k]} == {"cohort_hash", "files"}
    assert b["cohort_hash"] == wearbench.cohort.open_cohort(tmp_path / "shards").content_hash
    assert {k: v for k, v in a["files"].items() if k != "datasheet.md"} == {
        k: v for k, v in b["files"].items() if k != "datasheet.md"
    }


def test_packed_lines_equal_item_json(cohort: Cohort) -> None:
    contexts = contexts_from_cohort(cohort)
    qts = type_instances(None)
    pool = build_pool(list(contexts.values()), types=qts)
    tasks = [UserTask(ctx, qts, 7, pool) for ctx in contexts.values()]
    pending = [p for task in tasks for p in generate_user(task).items]
    assert len({p.type for p in pending}) >= 10  # 150 days: the long-history types have none
    for p in pending:
        packed = pack(p)
        [full] = assemble([p], 7)
        [light] = assemble([packed], 7)
        assert light.graph == {}
        assert light.evidence == {}
        assert item_line(light, packed) == full.to_json()
        assert item_line(full) == full.to_json()


def test_interned_items_are_equal_share_their_options_and_write_the_same_lines(cohort: Cohort) -> None:
    contexts = contexts_from_cohort(cohort)
    qts = type_instances(None)
    pool = build_pool(list(contexts.values()), types=qts)
    packed = [pack(p) for ctx in contexts.values() for p in generate_user(UserTask(ctx, qts, 7, pool)).items]
    shared = OptionInterner()
    interned = [shared(p) for p in packed]
    assert interned == packed  # dataclass equality: every field, options and claims included
    items, again = assemble(packed, 7), assemble(interned, 7)
    by_id = {p.id: p for p in packed}
    assert [item_line(i, by_id[i.id]) for i in again] == [item_line(i, by_id[i.id]) for i in items]
    options = [o for p in interned for o in (p.correct, *p.distractors)]
    texts = {o[0] for o in options}
    claims = {json.dumps(o[1], sort_keys=True) for o in options}
    assert len({id(o[0]) for o in options}) == len(texts) < len(options)  # one object per text
    assert len({id(o[1]) for o in options}) == len(claims) < len(options)  # one dict per claim
    labels = {json.dumps(p.labels, sort_keys=True) for p in interned}
    assert len({id(p.labels) for p in interned}) == len(labels)


def test_interning_keeps_claims_that_write_differently_apart() -> None:
    [p] = hand_packed()
    shared = OptionInterner()
    a = shared(p)
    assert a.distractors[0][1] is a.correct[1]  # equal claims: one dict
    b = shared(replace(p, correct=("up", {"v": 1.0}), distractors=(("down", {"v": True}),)))
    assert a.correct[1] == {"v": 1}
    assert b.correct[1] == {"v": 1.0}
    assert type(b.correct[1]["v"]) is float  # 1 and 1.0 write differently: not merged
    assert b.distractors[0][1]["v"] is True
    assert b.correct[0] is a.correct[0]  # the same text is one object


def hand_packed() -> list[Packed]:
    """One hand-made packed item: options "up" {v: 1} and "down" {v: 1}."""
    return [
        Packed(
            id="u1-trend-0", type="trend", type_version=1,
            labels={"reasoning": "trend", "signals": "single", "grounding": "data", "dependency": "none"},
            user_id="u1", end_date="2024-01-31", history_days=0, window_days=14, metrics=("steps",),
            question="Q?", correct=("up", {"v": 1}), distractors=(("down", {"v": 1}),),
            graph={}, evidence={}, grounding_ref=None, pair_kind=None, gates=None,
        )
    ]  # fmt: skip


def test_pool_sample_draws_a_seeded_subset_and_keeps_small_cohorts_whole() -> None:
    users = [f"u{i:03d}" for i in range(40)]
    assert pool_sample(users, 40, seed=1) is None
    assert pool_sample(users, 100, seed=1) is None
    a, b, c = pool_sample(users, 7, seed=1), pool_sample(users, 7, seed=1), pool_sample(users, 7, seed=2)
    assert a is not None
    assert c is not None
    assert a == b
    assert len(a) == 7
    assert a <= set(users)
    assert a != c
    with pytest.raises(ValueError, match="pool_users must be >= 1"):
        pool_sample(users, 0, seed=1)


def test_the_pool_takes_windows_of_the_sampled_users_only(cohort: Cohort) -> None:
    contexts = contexts_from_cohort(cohort)
    qts = type_instances(TYPES)
    sample = pool_sample(sorted(contexts), 5, seed=3)
    assert sample is not None
    chunked = [
        Users(i, tuple(sorted(contexts))[i : i + 4], tuple(contexts[u] for u in sorted(contexts)[i : i + 4]))
        for i in range(0, 12, 4)
    ]
    shared = Shared(qts, 3, None, pool_users=sample)
    got = merge_pool([scan(shared, u) for u in chunked], qts)
    picked = build_pool([contexts[u] for u in sorted(sample)], types=qts)
    everyone = build_pool(list(contexts.values()), types=qts)
    for m, values in picked.window_means.items():
        assert got.window_means[m].tolist() == values.tolist(), m
        assert got.window_slopes[m].tolist() == picked.window_slopes[m].tolist(), m
    assert sum(v.size for v in got.window_means.values()) < sum(
        v.size for v in everyone.window_means.values()
    )
    # the types' own cohort distributions still see every user
    assert got.extra.keys() == everyone.extra.keys()
    for k, v in everyone.extra.items():
        assert got.extra[k].tolist() == v.tolist(), k


def test_a_sampled_pool_is_recorded_and_does_not_depend_on_the_executor(
    cohort: Cohort, tmp_path: Path
) -> None:
    whole = build_benchmark(cohort, tmp_path / "whole", types=TYPES, seed=4)
    same = build_benchmark(cohort, tmp_path / "same", types=TYPES, seed=4, pool_users=12)
    assert whole.manifest["pool_users"] == 1000
    assert same.manifest["pool_users"] == 12
    assert files(tmp_path / "whole")["items.jsonl"] == files(tmp_path / "same")["items.jsonl"]
    serial = build_benchmark(cohort, tmp_path / "serial", types=TYPES, seed=4, pool_users=4)
    build_benchmark(cohort, tmp_path / "procs", types=TYPES, seed=4, pool_users=4, workers=2, chunk_users=3)
    assert serial.manifest["pool_users"] == 4
    assert files(tmp_path / "serial") == files(tmp_path / "procs")
