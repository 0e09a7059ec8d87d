"""Hypothesis stability of a one-hidden-layer perceptron (Gastpar et al., NeurIPS 2025, Appendix L):
two networks trained in tandem from one initialisation, the second without k training points;
agreement = the share of test images on which they predict the same class, after the last epoch."""
import gzip, io, json, os, sys, tarfile, time
import numpy as np
import torch

def members(deb):
    """The files of a Debian package (an ar archive holding data.tar.xz)."""
    raw = open(deb, "rb").read()
    assert raw[:8] == b"!<arch>\n", "not a Debian package"
    pos = 8
    while pos < len(raw):
        name = raw[pos:pos + 16].decode().strip().rstrip("/")
        size = int(raw[pos + 48:pos + 58].decode().strip())
        body = raw[pos + 60:pos + 60 + size]
        pos += 60 + size + (size % 2)
        if name.startswith("data.tar"):
            with tarfile.open(fileobj=io.BytesIO(body)) as tar:
                return {m.name.split("/")[-1]: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
    raise SystemExit("no data.tar in the package")

def idx(blob):
    data = gzip.decompress(blob)
    ndim = data[3]
    shape = [int.from_bytes(data[4 + 4 * i:8 + 4 * i], "big") for i in range(ndim)]
    return np.frombuffer(data, dtype=np.uint8, offset=4 + 4 * ndim).reshape(shape)

def load(deb):
    f = members(deb)
    get = lambda n: idx(f[n])
    xtr = get("train-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    xte = get("t10k-images-idx3-ubyte.gz").reshape(-1, 784).astype(np.float32) / 255.0
    return (torch.from_numpy(xtr), torch.from_numpy(get("train-labels-idx1-ubyte.gz").astype(np.int64)),
            torch.from_numpy(xte), torch.from_numpy(get("t10k-labels-idx1-ubyte.gz").astype(np.int64)))

def pair(seed, xtr, ytr, xte, lr, width, epochs, k, same_init):
    torch.manual_seed(seed)
    net = lambda: torch.nn.Sequential(torch.nn.Linear(784, width), torch.nn.ReLU(), torch.nn.Linear(width, 10))
    a = net()
    b = net()
    if same_init:
        b.load_state_dict(a.state_dict())
    gen = torch.Generator().manual_seed(seed)
    n = len(xtr)
    removed = torch.zeros(n, dtype=torch.bool)
    removed[torch.randperm(n, generator=gen)[:k]] = True  # drawn once, before training, and fixed
    for m, rows in ((a, torch.arange(n)), (b, torch.arange(n)[~removed])):
        opt = torch.optim.SGD(m.parameters(), lr=lr, momentum=0.9)
        order_gen = torch.Generator().manual_seed(seed)  # the seed is tied for the pair
        for _ in range(epochs):  # each model shuffles its own training set, every epoch
            order = rows[torch.randperm(len(rows), generator=order_gen)]
            for i in range(0, len(rows), 1000):
                use = order[i:i + 1000]
                opt.zero_grad()
                torch.nn.functional.cross_entropy(m(xtr[use]), ytr[use]).backward()
                opt.step()
    with torch.no_grad():
        pa, pb = a(xte).argmax(1), b(xte).argmax(1)
    return (pa == pb).float().mean().item(), pa

if __name__ == "__main__":
    torch.set_num_threads(int(os.environ.get("THREADS", "2")))
    lr = float(os.environ.get("LR", "0.01"))
    seed = int(os.environ.get("SEED", "0"))
    width, k = int(os.environ.get("WIDTH", "512")), int(os.environ.get("K", "100"))
    epochs = int(os.environ.get("EPOCHS", "150"))  # Table 1: 150 epochs for FashionMNIST
    same = os.environ.get("SAME_INIT", "1") == "1"
    xtr, ytr, xte, yte = load(sys.argv[1])
    t = time.time()
    agree, pred = pair(seed, xtr, ytr, xte, lr, width, epochs, k, same)
    acc = (pred == yte).float().mean().item()
    print(f"lr {lr} width {width} seed {seed} epochs {epochs}: agreement {100 * agree:.2f}% "
          f"test accuracy {100 * acc:.2f}% ({time.time() - t:.0f} s)", flush=True)
    json.dump({"fmnist_agreement_pct": round(100 * agree, 2)}, open("results.json", "w"))
