"""Glycaemic outcomes of each therapy on all 30 simglucose patients (``docs/cgm-therapies.md``).

Every therapy sees the same patients, random meals and sensor noise (one seed): Dexcom CGM,
Insulet pump for the pump therapies, no pump (exact doses) for MDI. Prints, per therapy, mean
time in range 70-180 mg/dL, below 70, below 54, above 180 (% of minutes, true plasma glucose),
mean glucose, the number of patients "at the floor" (plasma glucose below ``--floor`` mg/dL for
at least ``--floor-hours`` hours in a row) and the longest such run over all patients (minutes),
and the wall time of the run.

Run: ``python benchmarks/therapies.py`` (30 patients x 14 days; about a minute per therapy on
2 cores). ``--days 2 --patients 6`` for a quick look.

``--profile healthloopqa`` runs the profile's 20-patient cohort and scenario instead
(``docs/cgm-healthloopqa.md``, "Patient outcomes"; 30 days by default there), once without faults
and once with ``--faults random``, and prints per therapy and fault mode the same outcomes; with
``--per-patient`` it also prints each patient's longest run below the floor and the fault labels
active in the 6 hours before it started. The profile's people treat their lows with rescue carbs
(``RescueCarbs``: 15 g when the CGM shows <= 55 mg/dL or plasma glucose is < 54, at most every
15 min); "rescue /pt-day" counts treatments per patient-day and "rescue at >= 70 %" the share of
them given while plasma glucose was at least 70 mg/dL (an alarm from a faulty reading).
``--no-rescue`` runs the profile without them.

``--folder DIR`` instead prints the counts of a folder written by ``wearbench cgm simulate
--profile healthloopqa`` (readings, faults, hazard labels, meals, hypo treatments, boluses, time
in range of true BG; ``docs/cgm-healthloopqa.md``, "Measured").
"""

from __future__ import annotations

import argparse
import time

import numpy as np
import pandas as pd

THERAPIES = ("mdi", "sap", "basal-bolus", "hcl-mpc", "openaps")
PROFILE_THERAPIES = ("mdi", "sap", "hcl-mpc", "openaps")


def longest_run(below: np.ndarray) -> int:
    """Longest run of consecutive True values (minutes)."""
    padded = np.concatenate([[0], below.astype(np.int8), [0]])
    edges = np.flatnonzero(np.diff(padded))
    return int((edges[1::2] - edges[::2]).max()) if edges.size else 0


def outcomes(frame: pd.DataFrame, floor: float, floor_hours: float) -> dict[str, float]:
    bg = frame["true_bg"].to_numpy()
    per_patient = frame.groupby("patient", observed=True)["true_bg"]
    tir = per_patient.apply(lambda g: float(np.mean((g >= 70) & (g <= 180))) * 100)
    runs = per_patient.apply(lambda g: longest_run(g.to_numpy() < floor))
    out = {
        "TIR 70-180 %": float(tir.mean()),
        "<70 %": float(np.mean(bg < 70) * 100),
        "<54 %": float(np.mean(bg < 54) * 100),
        ">180 %": float(np.mean(bg > 180) * 100),
        "mean BG": float(bg.mean()),
        "min TIR %": float(tir.min()),
        "min BG": float(bg.min()),
        "at floor": int((runs >= floor_hours * 60).sum()),
        "longest <floor min": int(runs.max()),
        "longest <54 min": int(per_patient.apply(lambda g: longest_run(g.to_numpy() < 54)).max()),
    }
    if "rescue" in frame:
        treated = frame["rescue"].to_numpy() > 0
        patient_days = len(frame) / 1440
        out["rescue /pt-day"] = float(treated.sum() / patient_days)
        out["rescue at >= 70 %"] = float(np.mean(bg[treated] >= 70) * 100) if treated.any() else 0.0
    return out


def worst_lows(frame: pd.DataFrame, floor: float, before: int = 360) -> pd.DataFrame:
    """Per patient: longest run below ``floor`` (min), its start (minute) and the faults before it.

    ``faults`` lists the fault labels active from ``before`` minutes before the run's start to the
    start (``""`` when none).
    """
    rows = []
    for name, g in frame.groupby("patient", observed=True):
        low = g["true_bg"].to_numpy() < floor
        padded = np.concatenate([[0], low.astype(np.int8), [0]])
        edges = np.flatnonzero(np.diff(padded))
        if not edges.size:
            rows.append((name, 0, -1, ""))
            continue
        lengths = edges[1::2] - edges[::2]
        i = int(lengths.argmax())
        start = int(edges[::2][i])
        labels = g["label"].iloc[max(0, start - before) : start + 1] if "label" in g else []
        faults = ",".join(sorted({str(x) for x in labels if x}))
        rows.append((name, int(lengths[i]), int(g["minute"].iloc[start]), faults))
    table = pd.DataFrame(rows, columns=["patient", "longest <floor min", "start minute", "faults"])
    table.insert(1, "min BG", frame.groupby("patient", observed=True)["true_bg"].min().round(1).to_numpy())
    if "rescue" in frame:
        treated = frame.groupby("patient", observed=True)["rescue"].apply(lambda r: int((r > 0).sum()))
        table.insert(1, "treatments", treated.to_numpy())
    return table


def profile_main(args: argparse.Namespace) -> None:
    """The ``--profile`` mode: the profile's cohort and scenario, without and with random faults."""
    from dataclasses import replace

    from wearbench.sim import get_profile, simulate_profile

    profile = get_profile(args.profile)
    if args.no_rescue:
        profile = replace(profile, rescue=None)
    rows, lows = {}, {}
    for faults in ("none", "random"):
        for therapy in args.therapies.split(","):
            t0 = time.perf_counter()
            run = simulate_profile(profile, args.days, controller=therapy, faults=faults, seed=args.seed)
            seconds = time.perf_counter() - t0
            rows[(therapy, faults)] = {**outcomes(run.frame, args.floor, args.floor_hours), "wall s": seconds}
            lows[(therapy, faults)] = worst_lows(run.frame, args.floor)
    rescue = "no rescue carbs" if profile.rescue is None else f"rescue carbs {profile.rescue}"
    print(f"profile {profile.name}: {len(profile.cohort)} patients x {args.days} days, seed {args.seed}")
    print(rescue)
    print(pd.DataFrame(rows).T.round(2).to_string())
    if args.per_patient:
        for (therapy, faults), table in lows.items():
            print(f"\n{therapy}, faults {faults}: longest run below {args.floor:g} mg/dL per patient")
            print(table.to_string(index=False))


def folder_counts(folder: str) -> dict[str, float]:
    """The counts of a healthloopqa output folder (percentages of samples; true BG in mg/dL)."""
    read = {
        n: pd.read_parquet(f"{folder}/{n}.parquet")
        for n in ("readings", "truth", "labels", "faults", "events")
    }
    readings, labels, faults, events = read["readings"], read["labels"], read["faults"], read["events"]
    bg = read["truth"]["true_bg"].to_numpy()
    patients = readings["subject_id"].nunique()
    days = len(readings) / patients / 288
    carbs = events[events["kind"] == "carbs"]
    hypo = carbs[carbs["meal_type"] == "hypo_treatment"]
    per = hypo.groupby("subject_id").size().reindex(readings["subject_id"].unique(), fill_value=0)
    labels_each = faults.groupby("subject_id")["label"].nunique()
    hazards = labels["hazard_label"].value_counts(normalize=True) * 100
    return {
        "readings": len(readings),
        "patients": patients,
        "days": days,
        "missing readings": int(readings["glucose"].isna().sum()),
        "fault intervals": len(faults),
        "fault labels per patient (min)": int(labels_each.min()),
        "samples with a fault label %": float((labels["fault_label"] != "").mean() * 100),
        "hypo hazard %": float(hazards.get("hypoglycemia", 0.0)),
        "hyper hazard %": float(hazards.get("hyperglycemia", 0.0)),
        "typed meals": len(carbs) - len(hypo),
        "hypo treatments": len(hypo),
        "hypo treatment g": float(hypo["value"].sum()),
        "hypo treatments /pt-day": len(hypo) / (patients * days),
        "hypo treatments per patient min": int(per.min()),
        "hypo treatments per patient median": float(per.median()),
        "hypo treatments per patient max": int(per.max()),
        "exercise sessions": int((events["kind"] == "exercise").sum()),
        "boluses": int((events["kind"] == "bolus").sum()),
        "true BG 70-180 %": float(np.mean((bg >= 70) & (bg <= 180)) * 100),
        "true BG <70 %": float(np.mean(bg < 70) * 100),
        "true BG <54 %": float(np.mean(bg < 54) * 100),
        "lowest true BG": float(bg.min()),
    }


def main() -> None:
    from wearbench.sim import patient_names, simulate

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--profile", default=None, help="a simulation profile, e.g. healthloopqa")
    ap.add_argument("--days", type=int, default=None, help="days (default 14; 30 with --profile)")
    ap.add_argument("--patients", type=int, default=30)
    ap.add_argument("--seed", type=int, default=None, help="seed (default 0; 42 with --profile)")
    ap.add_argument("--floor", type=float, default=20.0, help="floor glucose (mg/dL)")
    ap.add_argument("--floor-hours", type=float, default=2.0)
    ap.add_argument("--therapies", default=None, help="comma-separated controller names")
    ap.add_argument("--per-patient", action="store_true", help="also print TIR per patient")
    ap.add_argument("--no-rescue", action="store_true", help="--profile without the profile's rescue carbs")
    ap.add_argument("--folder", default=None, help="print the counts of a healthloopqa output folder")
    args = ap.parse_args()
    if args.folder is not None:
        print(pd.Series(folder_counts(args.folder)).round(2).to_string())
        return
    if args.profile is not None:
        args.days = args.days or 30
        args.seed = 42 if args.seed is None else args.seed
        args.therapies = args.therapies or ",".join(PROFILE_THERAPIES)
        profile_main(args)
        return
    args.days = args.days or 14
    args.seed = 0 if args.seed is None else args.seed
    args.therapies = args.therapies or ",".join(THERAPIES)
    names = patient_names()[: args.patients]
    rows, per = {}, {}
    for therapy in args.therapies.split(","):
        pump = None if therapy == "mdi" else "Insulet"
        t0 = time.perf_counter()
        frame = simulate(names, args.days, controller=therapy, pump=pump, sensor="Dexcom", seed=args.seed)
        seconds = time.perf_counter() - t0
        rows[therapy] = {**outcomes(frame, args.floor, args.floor_hours), "wall s": seconds}
        per[therapy] = frame.groupby("patient", observed=True)["true_bg"].apply(
            lambda g: float(np.mean((g >= 70) & (g <= 180))) * 100
        )
    table = pd.DataFrame(rows).T
    print(
        f"{args.patients} patients x {args.days} days, seed {args.seed}, Dexcom CGM, Insulet pump (MDI: none)"
    )
    print(table.round(2).to_string())
    if args.per_patient:
        print(pd.DataFrame(per).round(1).to_string())


if __name__ == "__main__":
    main()
