"""How good is a judge? Its verdicts against gold labels: agreement, F1, kappa, cost."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import yaml
from pydantic import BaseModel, Field

from reclaim.judge import Judge
from reclaim.store import TRIAL_JSON, Outcome, TrialRecord, read_model, trial_spec

LABELS_FILE = "labels.yaml"
CLASSES = [o.value for o in Outcome]


class GoldTrial(BaseModel):
    trial: str
    label: Outcome
    why: str = ""


class Disagreement(BaseModel):
    trial: str
    label: str
    predicted: str
    rationale: str


class JudgeEval(BaseModel):
    judge: str
    gold: str
    n: int
    accuracy: float
    precision: float = Field(description="Of trials judged reproduced, the share that were.")
    recall: float = Field(description="Of reproduced trials, the share judged so.")
    f1: float
    kappa: float = Field(description="Cohen's kappa over all outcomes.")
    labels: list[str]
    confusion: dict[str, dict[str, int]] = Field(description="confusion[gold][predicted]")
    mean_tokens: float
    mean_cost_usd: float | None
    disagreements: list[Disagreement]


def load_gold(gold_dir: Path) -> list[GoldTrial]:
    path = gold_dir / LABELS_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [GoldTrial(trial=k, **v) for k, v in sorted(data.get("trials", {}).items())]


def metrics(pairs: list[tuple[str, str]]) -> dict:
    """Accuracy, precision/recall/F1 for 'reproduced', Cohen's kappa and the confusion matrix."""
    n = len(pairs)
    labels = [c for c in CLASSES if any(c in p for p in pairs)]
    confusion = {g: {p: 0 for p in labels} for g in labels}
    for g, p in pairs:
        confusion[g][p] += 1
    agree = sum(g == p for g, p in pairs)
    tp = sum(g == p == "reproduced" for g, p in pairs)
    pred_pos = sum(p == "reproduced" for _, p in pairs)
    gold_pos = sum(g == "reproduced" for g, _ in pairs)
    precision = tp / pred_pos if pred_pos else 0.0
    recall = tp / gold_pos if gold_pos else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    po = agree / n if n else 0.0
    pe = sum((sum(g == c for g, _ in pairs) / n) * (sum(p == c for _, p in pairs) / n) for c in labels) if n else 0.0
    kappa = 1.0 if pe == 1 else (po - pe) / (1 - pe)
    return {"n": n, "accuracy": po, "precision": precision, "recall": recall, "f1": f1, "kappa": kappa,
            "labels": labels, "confusion": confusion}


def evaluate(gold_dir: Path, judge: Judge, jobs: int = 4) -> JudgeEval:
    gold = load_gold(gold_dir)

    def one(g: GoldTrial):
        tdir = gold_dir / "trials" / g.trial
        rec = read_model(tdir / TRIAL_JSON, TrialRecord)
        if rec is None:
            raise FileNotFoundError(f"{tdir / TRIAL_JSON}: gold trial missing or unreadable")
        return g, judge.judge(trial_spec(tdir), tdir, rec.status)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        judged = list(pool.map(one, gold))
    pairs = [(g.label.value, v.outcome.value) for g, v in judged]
    costs = [v.cost_usd for _, v in judged]
    return JudgeEval(
        judge=judge.label, gold=str(gold_dir), **metrics(pairs),
        mean_tokens=sum(v.tokens_in + v.tokens_out for _, v in judged) / max(1, len(judged)),
        mean_cost_usd=None if any(c is None for c in costs) and judge.label != "rules"
        else sum(c or 0.0 for c in costs) / max(1, len(costs)),
        disagreements=[Disagreement(trial=g.trial, label=g.label.value, predicted=v.outcome.value,
                                    rationale=v.rationale[:300]) for g, v in judged if g.label != v.outcome])
