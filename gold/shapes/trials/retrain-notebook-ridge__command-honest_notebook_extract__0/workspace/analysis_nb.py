import numpy as np

train = np.loadtxt("../data/train.csv", delimiter=",", skiprows=1)
test = np.loadtxt("../data/test.csv", delimiter=",", skiprows=1)
X, y = train[:, :-1], train[:, -1]
Xt, yt = test[:, :-1], test[:, -1]
print("train", X.shape, "test", Xt.shape)

LAMBDA = 3.0  # ridge penalty (Section 2)

mu, sd = X.mean(axis=0), X.std(axis=0)
Z, Zt = (X - mu) / sd, (Xt - mu) / sd
ym = y.mean()
w = np.linalg.solve(Z.T @ Z + LAMBDA * np.eye(Z.shape[1]), Z.T @ (y - ym))
pred = Zt @ w + ym
r2 = 1 - np.sum((yt - pred) ** 2) / np.sum((yt - yt.mean()) ** 2)
print(f"test R^2 = {r2:.4f}")

import json
json.dump({'test_r2': float(r2)}, open('../results.json', 'w'))
