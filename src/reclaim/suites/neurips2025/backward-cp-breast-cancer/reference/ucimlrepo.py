"""Stand-in for the `ucimlrepo` client the notebook calls (fetch_ucirepo(id=17) downloads the UCI
Breast Cancer Wisconsin (Diagnostic) table; there is no network here). It serves the same 569 x 30
table from the copy bundled in scikit-learn (the task's data material: the scikit-learn 1.9.1 wheel,
unpacked under data/), in the layout fetch_ucirepo returns: .data.features (a DataFrame of the 30
features in UCI order) and .data.targets (a DataFrame with a 'Diagnosis' column of 'M'/'B')."""
import os
from types import SimpleNamespace

import numpy as np
import pandas as pd

CSV = os.path.join(os.environ.get("DATA_DIR", "data"), "sklearn", "datasets", "data", "breast_cancer.csv")
NAMES = [f"{f}{k}" for k in (1, 2, 3) for f in ("radius", "texture", "perimeter", "area", "smoothness",
         "compactness", "concavity", "concave_points", "symmetry", "fractal_dimension")]


def fetch_ucirepo(id=None, name=None):
    if id != 17:
        raise ValueError("only the Breast Cancer Wisconsin (Diagnostic) table (id=17) is served here")
    raw = np.loadtxt(CSV, delimiter=",", skiprows=1)
    features = pd.DataFrame(raw[:, :30], columns=NAMES)
    # scikit-learn codes the target 0 = malignant, 1 = benign (header: 569,30,malignant,benign)
    targets = pd.DataFrame({"Diagnosis": np.where(raw[:, 30] == 0, "M", "B")})
    return SimpleNamespace(data=SimpleNamespace(features=features, targets=targets),
                           metadata={"uci_id": 17, "num_instances": len(raw), "num_features": 30},
                           variables=None)
