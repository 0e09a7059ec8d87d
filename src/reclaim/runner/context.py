"""What the trials of one run share on the machine that runs them: the suite as the run
recorded it, the judge, the gateway and proxy, the paths no sandbox may see, and the run's
index entry. The run planner (run.py) and both executors (local.py, slurm.py) build on it, so
imports run one way: run -> executors -> context."""

from __future__ import annotations

from pathlib import Path

from reclaim import errors
from reclaim.agents import make_agent
from reclaim.budget import Allocator, discover
from reclaim.gateway import EgressProxy, Gateway, PackageCache, Upstreams, package_hosts
from reclaim.gateway.pkgcache import default_root as packages_root
from reclaim.judge import JudgeConfig, make_judge
from reclaim.materials import MaterialCache, envs_root
from reclaim.materials.cache import default_root as materials_root
from reclaim.runner.network import index_env
from reclaim.runner.settings import TrialSettings
from reclaim.spec import Problem, SpecError, Suite, load_suite
from reclaim.store import Index, RunDir, RunSpec, keep_records

RunError = errors.RunError


def load_run_suite(rd: RunDir, spec: RunSpec, suite_dir: Path | None = None) -> Suite:
    """The run's suite, from where it was (or ``suite_dir``, where it lies now), refusing a task
    whose content changed since the run began: a suite is the same by its tasks' hashes, not its path."""
    where = Path(suite_dir) if suite_dir is not None else Path(spec.suite_dir)
    if not (where / "suite.yaml").is_file():
        raise RunError(f"the run's suite is no longer at {where}; if it moved, resume with "
                       f"--resume {rd.path} --suite NEWPATH (its tasks must be unchanged)")
    suite = load_suite(where)
    problems = []
    for tid, h in spec.task_hashes.items():
        try:
            now = suite.task(tid).hash
        except KeyError:
            now = None
        if now != h:
            problems.append(Problem(where / tid, "", "task changed or vanished since the run began",
                                    f"restore it, or start a new run instead of resuming {rd.path}"))
    if problems:
        raise SpecError(problems)
    return suite


def make_settings(rd: RunDir, spec: RunSpec, suite: Suite, pending: list) -> TrialSettings:
    """What the trials of this run share on this machine: judge, GPUs, and a gateway if needed."""
    keep_records(spec.private)  # also where a Slurm job runs the trial
    gpus = discover(spec.gpus, fake_root=rd.path / "fake-gpus")
    cache = MaterialCache(Path(spec.materials_cache) if spec.materials_cache else None, offline=spec.offline)
    settings = TrialSettings(run_id=spec.run_id, run_dir=rd, sandbox=spec.sandbox,
                             judge=make_judge(run_judge(spec)), hidden=hidden_paths(suite, rd, cache.root),
                             budget_scale=spec.budget_scale, model=spec.model, gpu_backend=gpus,
                             allocator=Allocator(gpus.devices()) if gpus else None,
                             cache=cache, image=spec.image)
    if pending and settings.kind.network != "host":  # the only way out of a sandbox; every request on the record
        settings.egress = EgressProxy(package_cache=PackageCache()).start()
        settings.package_hosts, settings.index_env = package_hosts(), index_env()
    if pending and any(make_agent(agent).needs_model for _, agent, _ in pending):
        settings.gateway = Gateway(Upstreams.model_validate(spec.upstreams)).start()
    return settings


def run_judge(spec: RunSpec) -> JudgeConfig:
    return JudgeConfig.model_validate(spec.judge_config or {"name": spec.judge})


def hidden_paths(suite: Suite, rd: RunDir, materials_cache: Path | None = None) -> list[Path]:
    """What must stay invisible in a sandbox even where it lies inside a bound folder: the
    caches too (materials, withheld ones included; prepared environments; packages), wherever
    they are put: under $HOME they are hidden with it, but a shared path may lie anywhere.
    A trial's own materials and environment come in by binds of their own folders."""
    package = Path(__file__).resolve().parents[1]
    caches = [materials_cache or materials_root(), envs_root(), packages_root()]
    spec = rd.spec()
    root = [Path(spec.runs_root)] if spec.runs_root else []  # the other runs, where --run-dir lies elsewhere
    return [suite.dir.resolve(), rd.path.resolve().parent, *root, package, Path.home(), Path("/home"), *caches]


def index_run(rd: RunDir, fn) -> None:
    """Keep the index current; it is rebuildable, so a failure here never stops a run."""
    try:
        spec = rd.spec()
        fn(Index(Path(spec.runs_root) if spec.runs_root else rd.path.resolve().parent))
    except Exception:
        pass
