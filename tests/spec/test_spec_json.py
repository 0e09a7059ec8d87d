"""spec.json, the task a trial ran under, reads back as it was written: an infinite bound too."""

from __future__ import annotations

import math

from reclaim.spec import Criteria
from reclaim.spec.claims import Target


def test_an_infinite_bound_survives_the_round_trip():
    t = Target(claim="x", metric="shd", value=0, direction="lower_is_better", bounds=(0, math.inf))
    assert Target.model_validate_json(t.model_dump_json()).bounds == (0, math.inf)
    c = Criteria(abs_tol=1, max_better=math.inf)  # JSON's null would read back as 'no max_better given'
    assert Criteria.model_validate_json(c.model_dump_json()).max_better == math.inf
