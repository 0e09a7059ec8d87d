"""How good is a judge? Its verdicts against gold labels: agreement, F1, kappa, cost."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Literal

import yaml
from pydantic import BaseModel, Field, model_validator

from reclaim.errors import NotFound
from reclaim.judge import Judge
from reclaim.judge.verdict import Verdict
from reclaim.store import TRIAL_JSON, Outcome, TrialRecord, read_model, trial_spec

LABELS_FILE = "labels.yaml"
CLASSES = [o.value for o in Outcome]


Kind = Literal["honest", "adversarial"]


class GoldTrial(BaseModel):
    trial: str
    label: Outcome
    kind: Kind | None = Field(None, description="honest: the agent tried to reproduce; adversarial: it cheats or "
                              "overclaims. Left out: adversarial if labelled disqualified, else honest.")
    why: str = ""
    metrics: dict[str, Literal["held", "not_held"]] = Field(
        default_factory=dict, description="Per number of the claim, whether it held (optional).")

    @model_validator(mode="after")
    def _infer_kind(self) -> GoldTrial:
        if self.kind is None:
            self.kind = "adversarial" if self.label == Outcome.disqualified else "honest"
        return self


class MetricAgreement(BaseModel):
    """How often the judge's per-number held flags match the gold labels of one metric name."""

    n: int
    agree: int
    rate: float
    missing: list[str] = Field(default_factory=list, description="Trials whose verdict did not judge this number.")
    disagreements: list[str] = Field(default_factory=list, description="Trials where held and gold differ.")


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
    kinds: dict[str, int] = Field(default_factory=dict, description="Gold trials per kind: honest, adversarial.")
    honest_disqualified: int = Field(0, description="Honest trials the judge disqualified (aim: 0).")
    honest_disqualified_trials: list[str] = Field(default_factory=list)
    adversarial_reproduced: int = Field(0, description="Adversarial trials judged reproduced (aim: 0).")
    adversarial_reproduced_trials: list[str] = Field(default_factory=list)
    metric_agreement: dict[str, MetricAgreement] = Field(
        default_factory=dict, description="Per metric name, where gold labels carry per-number labels.")


def load_gold(gold_dir: Path) -> list[GoldTrial]:
    path = gold_dir / LABELS_FILE
    data = yaml.safe_load(path.read_text(encoding="utf-8")) or {}
    return [GoldTrial(trial=k, **v) for k, v in sorted(data.get("trials", {}).items())]


def metrics(pairs: list[tuple[str, str]]) -> dict:
    """Accuracy, precision/recall/F1 for 'reproduced', Cohen's kappa and the confusion matrix."""
    n = len(pairs)
    labels = [c for c in CLASSES if any(c in p for p in pairs)]
    confusion = {g: dict.fromkeys(labels, 0) for g in labels}
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


def held(met: bool | None, outcome: Outcome) -> bool:
    """As reports read it (report/claims.py): criteria met, and the trial not disqualified."""
    return met is True and outcome != Outcome.disqualified


def metric_agreement(judged: list[tuple[GoldTrial, Verdict]]) -> dict[str, MetricAgreement]:
    """Per metric name: gold per-number labels against the verdicts' held flags."""
    seen: dict[str, list[tuple[str, bool | None, bool]]] = {}
    for g, v in judged:
        flags = {m.name: held(m.met, v.outcome) for m in v.metrics}
        for name, label in g.metrics.items():
            seen.setdefault(name, []).append((g.trial, flags.get(name), label == "held"))
    out = {}
    for name, rows in sorted(seen.items()):
        agree = sum(got == want for _, got, want in rows)
        out[name] = MetricAgreement(n=len(rows), agree=agree, rate=agree / len(rows),
                                    missing=[t for t, got, _ in rows if got is None],
                                    disagreements=[t for t, got, want in rows if got is not None and got != want])
    return out


def evaluate(gold_dir: Path, judge: Judge, jobs: int = 4) -> JudgeEval:
    gold = load_gold(gold_dir)

    def one(g: GoldTrial):
        tdir = gold_dir / "trials" / g.trial
        rec = read_model(tdir / TRIAL_JSON, TrialRecord)
        if rec is None:
            raise NotFound(f"{tdir / TRIAL_JSON}: gold trial missing or unreadable")
        return g, judge.judge(trial_spec(tdir), tdir, rec.status)

    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        judged = list(pool.map(one, gold))
    pairs = [(g.label.value, v.outcome.value) for g, v in judged]
    costs = [v.cost_usd for _, v in judged]
    honest_dq = [g.trial for g, v in judged if g.kind == "honest" and v.outcome == Outcome.disqualified]
    adversarial_ok = [g.trial for g, v in judged if g.kind == "adversarial" and v.outcome == Outcome.reproduced]
    return JudgeEval(
        judge=judge.label, gold=str(gold_dir), **metrics(pairs),
        mean_tokens=sum(v.tokens_in + v.tokens_out for _, v in judged) / max(1, len(judged)),
        mean_cost_usd=None if any(c is None for c in costs) and judge.label != "rules"
        else sum(c or 0.0 for c in costs) / max(1, len(costs)),
        disagreements=[Disagreement(trial=g.trial, label=g.label.value, predicted=v.outcome.value,
                                    rationale=v.rationale[:300]) for g, v in judged if g.label != v.outcome],
        kinds={k: sum(g.kind == k for g in gold) for k in ("honest", "adversarial")},
        honest_disqualified=len(honest_dq), honest_disqualified_trials=honest_dq,
        adversarial_reproduced=len(adversarial_ok), adversarial_reproduced_trials=adversarial_ok,
        metric_agreement=metric_agreement(judged))
