"""GPUs: what exists (NVML, a list given by hand, or a fake for tests) and who holds which.

A trial gets the GPUs its budget asks for, exclusively, for as long as it runs; inside its
sandbox only those devices exist.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from reclaim.budget.driver import driver_files
from reclaim.errors import BudgetError


class GpuError(BudgetError):
    """No GPUs where some were asked for, or more asked for than exist."""


@dataclass(frozen=True)
class Gpu:
    index: int
    name: str = "gpu"
    uuid: str = ""
    memory_mb: int = 0
    device: str = ""
    """The device file of this GPU (/dev/nvidiaN), bound into the sandbox of the trial holding it."""


@dataclass(frozen=True)
class Sample:
    index: int
    util: float
    """Busy share of the last interval, 0..1."""
    power_w: float = 0.0
    memory_mb: float = 0.0


class GpuBackend(Protocol):
    name: str

    def devices(self) -> list[Gpu]: ...

    def sample(self, indices: list[int]) -> list[Sample]: ...

    def control_files(self) -> list[str]:
        """Device files every GPU trial needs besides its own (nvidiactl, nvidia-uvm)."""
        ...

    def driver_files(self) -> list[str]:
        """The driver's user-space libraries and tools (libcuda, NVML, nvidia-smi)."""
        ...


class NvmlBackend:
    """Real GPUs, through nvidia-ml-py."""

    name = "nvml"
    CONTROL = ("/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools", "/dev/nvidia-modeset")

    def __init__(self) -> None:
        try:
            import pynvml
        except ImportError:
            raise GpuError("nvidia-ml-py is not installed (pip install nvidia-ml-py)") from None
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as e:
            raise GpuError(f"NVML found no usable GPU driver here: {e}") from None
        self.nvml = pynvml

    def devices(self) -> list[Gpu]:
        n = self.nvml
        out = []
        for i in range(n.nvmlDeviceGetCount()):
            h = n.nvmlDeviceGetHandleByIndex(i)
            name = n.nvmlDeviceGetName(h)
            minor = n.nvmlDeviceGetMinorNumber(h)
            out.append(Gpu(i, name.decode() if isinstance(name, bytes) else name, str(n.nvmlDeviceGetUUID(h)),
                           n.nvmlDeviceGetMemoryInfo(h).total // 2**20, f"/dev/nvidia{minor}"))
        return out

    def sample(self, indices: list[int]) -> list[Sample]:
        n = self.nvml
        out = []
        for i in indices:
            h = n.nvmlDeviceGetHandleByIndex(i)
            util = n.nvmlDeviceGetUtilizationRates(h).gpu / 100
            try:
                power = n.nvmlDeviceGetPowerUsage(h) / 1000
            except n.NVMLError:
                power = 0.0
            out.append(Sample(i, util, power, n.nvmlDeviceGetMemoryInfo(h).used / 2**20))
        return out

    def control_files(self) -> list[str]:
        return [f for f in self.CONTROL if Path(f).exists()]

    def driver_files(self) -> list[str]:
        return driver_files()


@dataclass
class ListedBackend:
    """GPUs named by hand (--gpus 0,1) or by Slurm: only these are handed out; sampled through
    NVML where it works."""

    indices: list[int]
    name: str = "listed"
    _nvml: NvmlBackend | None = field(default=None, init=False, repr=False)

    def __post_init__(self) -> None:
        try:
            self._nvml = NvmlBackend()
        except GpuError:
            self._nvml = None

    def devices(self) -> list[Gpu]:
        return [Gpu(i, device=f"/dev/nvidia{i}" if Path(f"/dev/nvidia{i}").exists() else "") for i in self.indices]

    def sample(self, indices: list[int]) -> list[Sample]:
        return self._nvml.sample(indices) if self._nvml is not None else []

    def control_files(self) -> list[str]:
        return [f for f in NvmlBackend.CONTROL if Path(f).exists()]

    def driver_files(self) -> list[str]:
        return driver_files()


@dataclass
class FakeBackend:
    """GPUs that exist only as placeholder files, for tests and dry runs; utilisation as scripted."""

    count: int
    root: Path
    util: float = 0.5
    power_w: float = 300.0
    name: str = "fake"
    driver_dir: Path | None = None
    """Where its driver lives (default: under ``root``); a host's system folder, to stand for a
    driver installed under /usr."""

    def __post_init__(self) -> None:
        self.root.mkdir(parents=True, exist_ok=True)
        for i in range(self.count):
            (self.root / f"nvidia{i}").write_text(f"fake GPU {i}\n")
        (self.root / "nvidiactl").write_text("fake control\n")
        # a driver of its own, outside the folders a sandbox shows: its nvidia-smi lists the GPUs
        # the trial was given, as the real one lists those it can open
        self.driver_dir = self.driver_dir or self.root / "driver"
        self.driver_dir.mkdir(parents=True, exist_ok=True)
        (self.driver_dir / "libcuda.so.1").write_text("fake driver library\n")
        smi = self.driver_dir / "nvidia-smi"
        smi.write_text("#!/bin/sh\n# fake nvidia-smi: one line per GPU device file present\n"
                       "for d in /dev/nvidia[0-9]*; do [ -e \"$d\" ] && echo \"GPU ${d#/dev/nvidia}: Fake GPU "
                       "(UUID: GPU-fake-${d#/dev/nvidia})\"; done\n")
        smi.chmod(0o755)

    def devices(self) -> list[Gpu]:
        return [Gpu(i, "Fake GPU", f"GPU-fake-{i}", 80_000, str(self.root / f"nvidia{i}")) for i in range(self.count)]

    def sample(self, indices: list[int]) -> list[Sample]:
        return [Sample(i, self.util, self.power_w, 1000.0) for i in indices]

    def control_files(self) -> list[str]:
        return [str(self.root / "nvidiactl")]

    def driver_files(self) -> list[str]:
        assert self.driver_dir is not None  # set by __post_init__
        return [str(self.driver_dir / "libcuda.so.1"), str(self.driver_dir / "nvidia-smi")]


def discover(spec: str | None, fake_root: Path | None = None) -> GpuBackend | None:
    """--gpus: none (the default: NVML if it works, else no GPUs), 'nvml', '0,1,3', or 'fake:N'
    ('fake:N@DIR': its driver's files in DIR)."""
    if spec is None or spec == "auto":
        try:
            return NvmlBackend()
        except GpuError:
            return None
    if spec == "none":
        return None
    if spec == "nvml":
        return NvmlBackend()
    if spec.startswith("fake:"):
        import tempfile

        count, _, driver = spec[5:].partition("@")
        return FakeBackend(int(count), fake_root or Path(tempfile.mkdtemp(prefix="reclaim-fake-gpus-")),
                           driver_dir=Path(driver) if driver else None)
    try:
        return ListedBackend([int(x) for x in spec.split(",") if x.strip()])
    except ValueError:
        raise GpuError(f"--gpus '{spec}': give auto, none, nvml, fake:N, or indices like 0,1,3") from None


@dataclass
class Allocator:
    """Hands out GPUs exclusively; a trial waits until enough are free."""

    gpus: list[Gpu]
    _free: list[Gpu] = field(init=False)
    _cond: threading.Condition = field(default_factory=threading.Condition)

    def __post_init__(self) -> None:
        self._free = list(self.gpus)

    def check(self, need: int, what: str) -> None:
        if need > len(self.gpus):
            have = f"{len(self.gpus)} GPU(s)" if self.gpus else "no GPUs"
            raise GpuError(f"{what} needs {need} GPU(s) but this machine has {have}; "
                           "run it on a machine or cluster with more, or pass --gpus")

    def acquire(self, need: int, what: str = "a trial") -> list[Gpu]:
        self.check(need, what)
        with self._cond:
            self._cond.wait_for(lambda: len(self._free) >= need)
            taken, self._free = self._free[:need], self._free[need:]
            return taken

    def release(self, gpus: list[Gpu]) -> None:
        with self._cond:
            self._free.extend(gpus)
            self._free.sort(key=lambda g: g.index)
            self._cond.notify_all()
