"""Evaluate the authors' shipped ToP-Rec checkpoint (weights/best_model: LightGCN on the augmented Twitter
graph) on the released Twitter split with the released data loader, LightGCN and evaluator (code/model/),
exactly as code/model/main.py does after training (load the state dict, register edge_index/edge_weight,
Evaluator.evaluate with the training items masked), and write Recall@50/100 and Category-Entropy@50/100.

code/model/main.py itself cannot be run as released: it imports model/util.py, which imports ToP.recommender
and ToP/llm/__init__.py, whose modules deepseek_chat, glm_chat, bailian_chat and qwq_chat are not in the
repository (ImportError), and it reads args.n_group / args.k_step that its argparse never defines. This script
uses only the modules the evaluation needs.

EVAL_SPLIT (test: the paper's Table 1; valid: the perturbation) picks the split; WEIGHTS=none evaluates a
randomly initialised LightGCN instead of the checkpoint (the weakened experiment)."""
import argparse
import copy
import json
import os
import random
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.join("code", "model"))
from data_loader import InteractionDataset, create_dataloaders  # noqa: E402
from evaluator import Evaluator  # noqa: E402
from model import LightGCN  # noqa: E402

split = os.environ.get("EVAL_SPLIT", "test")
weights = os.environ.get("WEIGHTS", "weights/best_model")
prefix = "data/twitter/twitter"
random.seed(42)
np.random.seed(42)
torch.manual_seed(42)
args = argparse.Namespace(top_k=[50, 100], metrics=["recall", "entropy"], mask_train="True",
                          device=torch.device("cpu"), eval_size=4086, batch_size=20480)
ds = InteractionDataset(f"{prefix}.train.inter", f"{prefix}.valid.inter", f"{prefix}.test.inter", f"{prefix}.item")
_, valid_loader, test_loader = create_dataloaders(ds, args.batch_size, args.eval_size)
model = LightGCN(ds.n_users, ds.n_items, 32, ds.train_records)
if weights != "none":
    state = torch.load(weights, weights_only=True, map_location="cpu")
    edge_index, edge_weight = state.pop("edge_index"), state.pop("edge_weight")
    model.load_state_dict(state, strict=False)
    model.register_buffer("edge_index", edge_index)
    model.register_buffer("edge_weight", edge_weight)
evaluator = Evaluator(ds.n_items, args, train_user_pos_items=copy.deepcopy(ds.train_user_pos_items))
m = evaluator.evaluate(test_loader if split == "test" else valid_loader, model)
out = {"twitter_recall_at_50": float(m[50]["recall"]), "twitter_recall_at_100": float(m[100]["recall"]),
       "twitter_category_entropy_at_50": float(m[50]["entropy"]),
       "twitter_category_entropy_at_100": float(m[100]["entropy"])}
json.dump(out, open("results.json", "w"), indent=2)
print(json.dumps(out))
