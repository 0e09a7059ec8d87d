"""Stochastic gradient bandit (Algorithm 1 of Robertson et al., NeurIPS 2025), Fig. 2a setting:
arms with mean rewards (0.2, 0.2, -0.1), theta_0 = 0, constant learning rate eta, 1e5 iterations.
Writes the total probability of the optimal arms at the last iterate, averaged over seeds."""
import numpy as np, os, json
ITERS=int(os.environ.get("ITERS","100000")); SEEDS=int(os.environ.get("SEEDS","30")); SEED=int(os.environ.get("SEED","0"))
NOISE=float(os.environ.get("NOISE","0.0"))
means=np.array([0.2,0.2,-0.1]); opt=np.array([1,1,0],bool)
out={}
for eta in (1.0,10.0):
    rng=np.random.default_rng([SEED,int(eta)])
    th=np.zeros((SEEDS,3))
    for t in range(ITERS):
        z=th-th.max(1,keepdims=True); p=np.exp(z); p/=p.sum(1,keepdims=True)
        u=rng.random((SEEDS,1)); a=(u>np.cumsum(p,1)).sum(1)
        r=means[a]+NOISE*rng.standard_normal(SEEDS)
        g=-p; g[np.arange(SEEDS),a]+=1
        th+=eta*r[:,None]*g
    z=th-th.max(1,keepdims=True); p=np.exp(z); p/=p.sum(1,keepdims=True)
    po=p[:,opt].sum(1)
    out[f"optimal_arms_prob_eta{int(eta)}"]=round(float(po.mean()),4)
    out[f"arm1_prob_sd_eta{int(eta)}"]=round(float(p[:,0].std()),4)
print(json.dumps(out))
json.dump(out,open(os.environ.get("OUT","results.json"),"w"))
