"""An optional model's proposal of a paper's headline claim, through any OpenAI-compatible
endpoint, kept only where code finds its value at the place it names (targets.stands); else the
written rule's candidate stands, and the checklist says the proposal was set aside and why."""

from __future__ import annotations

import json

from reclaim.curate.targets import Candidate, criteria_for, direction, metric_name, stands

PROMPT = (
    "From the paper below, give its headline result as JSON with keys: claim (one sentence), metric "
    "(the column name as printed), value (a number, as printed), direction (higher_is_better or "
    "lower_is_better), where (exactly: Table N, row 'ROW', column 'COLUMN', with ROW and COLUMN copied "
    "from the table). Answer with the JSON object only.\n\n"
)
MAX_CHARS = 60_000


class Proposer:
    def __init__(self, model: str, base_url: str | None = None, api_key: str | None = None):
        from openai import OpenAI

        self.model = model
        self.client = OpenAI(base_url=base_url, api_key=api_key or "unused", max_retries=3, timeout=120)

    def propose(self, text: str, fallback: Candidate | None) -> tuple[Candidate | None, str]:
        """The model's candidate where it checks out, else ``fallback``; and a line for the checklist."""
        try:
            reply = self.client.chat.completions.create(
                model=self.model, messages=[{"role": "user", "content": PROMPT + text[:MAX_CHARS]}],
                response_format={"type": "json_object"}, temperature=0)
            got = json.loads(reply.choices[0].message.content or "{}")
            value = float(got["value"])
            metric = str(got["metric"])
            d = got.get("direction") if got.get("direction") in ("higher_is_better", "lower_is_better") \
                else direction(metric)
            cand = Candidate(claim=str(got["claim"]), metric=metric_name(metric), value=value, direction=d or "match",
                             where=str(got["where"]), found=False,
                             criteria=criteria_for(value, str(got["value"]), metric),
                             rule=f"proposed by {self.model}, checked by code at its location")
        except Exception as e:
            return fallback, f"{self.model}: no usable proposal ({type(e).__name__}); the rule's candidate stands"
        if stands(cand, text):
            cand.found = True
            return cand, f"{self.model} proposed it; its value stands at {cand.where}"
        return fallback, (f"{self.model} proposed {cand.metric} {cand.value:g} at {cand.where}, which is not there: "
                          "set aside; the rule's candidate stands")
