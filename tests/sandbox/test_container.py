"""The container backend keeps bwrap's contract, against a real image in a real engine.

The image is built offline from Debian packages (scripts/build-test-image, cached per machine);
without a working engine only the argv checks run.
"""

from __future__ import annotations

import http.server
import os
import secrets
import shutil
import socket
import socketserver
import statistics
import subprocess
import threading
import time
from pathlib import Path

import psutil
import pytest

from reclaim.budget.limits import Limits
from reclaim.gateway import server as gateway_server
from reclaim.sandbox import (
    Bind,
    SandboxConfig,
    SandboxError,
    check_backend,
    engines,
    execlog,
    identity,
    images,
    make_sandbox,
)
from reclaim.sandbox.base import base_env
from reclaim.sandbox.container import CGROUP_ROOT, ContainerSandbox

ROOT = Path(__file__).resolve().parents[2]
needs_engine = pytest.mark.skipif(images.available("podman") is not None,
                                  reason=f"podman cannot run containers here: {images.available('podman')}")


@pytest.fixture(scope="session")
def image() -> str:
    if (why := images.available("podman")) is not None:
        pytest.skip(f"podman cannot run containers here: {why}")
    t0 = time.monotonic()
    res = subprocess.run([str(ROOT / "scripts" / "build-test-image")], check=False, capture_output=True, text=True,
                         timeout=1800)
    assert res.returncode == 0, res.stderr
    print(f"\ntest image {res.stdout.strip()} ready in {time.monotonic() - t0:.1f}s")
    return res.stdout.strip()


def _box(tmp_path: Path, image: str, **kw) -> ContainerSandbox:
    sb = ContainerSandbox(SandboxConfig(tmp_path / "ws", image=image, **kw), "podman")
    sb.start()
    return sb


@pytest.fixture
def box(tmp_path, image):
    sb = _box(tmp_path, image)
    yield sb
    sb.stop()


def _sh(sb, script: str, tmp_path: Path, **kw):
    res = sb.exec(["bash", "-c", script], stdout=tmp_path / "o", stderr=tmp_path / "e", **kw)
    return res, (tmp_path / "o").read_text(), (tmp_path / "e").read_text()


# -- the protocol -------------------------------------------------------------------------------

def test_registered_backend(tmp_path):
    assert isinstance(make_sandbox("container", SandboxConfig(tmp_path)), ContainerSandbox)
    assert check_backend("container") == images.available()


def test_exit_codes_and_streams(box, tmp_path):
    res, out, err = _sh(box, "echo out; echo err >&2; exit 3", tmp_path)
    assert res.exit_code == 3 and not res.timed_out and (out, err) == ("out\n", "err\n")
    res, _, _ = _sh(box, "exit 125", tmp_path)  # the engine's own code, yet the command's: no SandboxError
    assert res.exit_code == 125
    res, _, _ = _sh(box, "kill -9 $$", tmp_path)
    assert res.exit_code == 137
    res = box.exec(["no-such-program"], stdout=tmp_path / "o", stderr=tmp_path / "e")
    assert res.exit_code == 127


def test_workspace_is_writable_and_files_cross_it(box, tmp_path):
    box.write_file("in/a.txt", b"A")
    res, out, _ = _sh(box, "cat in/a.txt > b.txt; pwd; stat -c %u b.txt", tmp_path)
    assert res.ok and box.read_file("b.txt") == b"A"
    assert out.split() == ["/workspace", str(identity.current().uid)]
    with pytest.raises(SandboxError):
        box.read_file("../../etc/passwd")
    with pytest.raises(SandboxError):
        box.write_file("../escape.txt", b"x")
    (tmp_path / "ws" / "link").symlink_to("/etc/hostname")
    with pytest.raises(SandboxError):
        box.read_file("link")


def test_system_read_only_and_host_absent(box, tmp_path):
    secret = Path("/var/tmp") / f"reclaim-secret-{secrets.token_hex(4)}"
    secret.write_text("top secret\n")
    try:
        _res, out, _ = _sh(box, f"""
for p in /usr/x /etc/x /x /var/lib/x; do touch $p 2>/dev/null && echo "WROTE $p" || echo "READONLY $p"; done
for p in {secret} {ROOT} /root/.bash_history {Path.home()}/.ssh /run/podman/podman.sock /var/run/docker.sock; do
  [ -e "$p" ] && echo "VISIBLE $p" || echo "ABSENT $p"; done
touch /tmp/t /var/tmp/t && echo TMP-OK""", tmp_path)
    finally:
        secret.unlink()
    assert "WROTE" not in out and out.count("READONLY") == 4, out
    assert "VISIBLE" not in out and out.count("ABSENT") == 6, out
    assert "TMP-OK" in out


def test_no_network(box, tmp_path):
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    port = server.getsockname()[1]
    try:
        _res, out, _ = _sh(box, f"""python3 - <<'PY'
import socket
for host in ("127.0.0.1", "10.0.0.1", "1.1.1.1"):
    try:
        socket.create_connection((host, {port}), timeout=2); print("CONNECTED", host)
    except OSError as e:
        print("REFUSED", host)
print(sorted(open("/proc/net/dev").read().split()[i].rstrip(":") for i in (20, )))
PY""", tmp_path)
    finally:
        server.close()
    assert "CONNECTED" not in out and out.count("REFUSED") == 3, out
    assert "['lo']" in out  # one interface: loopback


def test_no_capabilities_and_unprivileged(box, tmp_path):
    _res, out, _err = _sh(box, """grep -E '^Cap(Eff|Prm|Bnd|Amb)' /proc/self/status; grep NoNewPrivs /proc/self/status
mount -t tmpfs none /mnt && echo MOUNTED; unshare -U true && echo USERNS; id -u""", tmp_path)
    caps = dict(line.split(":\t") for line in out.splitlines() if line.startswith("Cap"))
    assert set(caps.values()) == {"0000000000000000"}, out
    assert "NoNewPrivs:\t1" in out and "MOUNTED" not in out, out
    uid = out.split()[-1]
    if os.geteuid() == 0:
        assert uid == str(identity.current().uid) != "0"


def test_env_is_clean(tmp_path, image):
    os.environ["OPENAI_API_KEY"] = "sk-should-never-leak"
    try:
        sb = _box(tmp_path, image, env={"TASK_VAR": "yes", "MULTI": "a\nb"})
        _res, _out, _ = _sh(sb, "env -0 > env.bin; printf '%s' \"$MULTI\" > multi", tmp_path, env={"EXTRA": "1"})
        sb.stop()
    finally:
        del os.environ["OPENAI_API_KEY"]
    inside = dict(kv.split("=", 1) for kv in sb.read_file("env.bin").decode().split("\0") if kv)
    assert "sk-should-never-leak" not in str(inside) and inside["TASK_VAR"] == "yes" and inside["EXTRA"] == "1"
    assert inside["MULTI"] == "a\nb" and sb.read_file("multi") == b"a\nb"
    assert inside["PATH"] == "/usr/local/bin:/usr/bin:/bin" and inside["HOME"] == "/workspace"
    allowed = set(base_env(sb.config, "/workspace")) | {"EXTRA", "container", "TERM", "HOSTNAME", "PWD", "SHLVL", "_"}
    assert set(inside) <= allowed, set(inside) - allowed


def test_timeout_kills_the_whole_tree(box, tmp_path):
    res, out, _ = _sh(box, "sleep 301 & (sleep 302 &); echo before; wait", tmp_path, timeout=1)
    assert res.timed_out and res.exit_code is None and res.duration < 15 and out == "before\n"
    time.sleep(0.5)
    left = [p.info["cmdline"] for p in psutil.process_iter(["cmdline"]) if (p.info["cmdline"] or [""])[:2]
            in (["sleep", "301"], ["sleep", "302"])]
    assert left == []
    names = subprocess.run(["podman", "ps", "-a", "--filter", "label=reclaim.sandbox=1", "--format", "{{.Names}}"],
                           check=False, capture_output=True, text=True).stdout.split()
    assert not set(names) & set(box._live) and not box._live


def test_gateway_relay(tmp_path, image):
    """Programs inside reach the gateway's Unix socket through the same forward.py as under bwrap."""
    gw = tmp_path / "gw"
    gw.mkdir(mode=0o755)
    shutil.copyfile(Path(gateway_server.__file__).with_name("forward.py"), gw / gateway_server.FORWARDER)

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            body = f"gateway saw {self.path}".encode()
            self.send_response(200)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *a):
            pass

    class Server(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
        daemon_threads = True

        def get_request(self):
            conn, _ = super().get_request()
            return conn, ("unix", 0)

    srv = Server(str(gw / gateway_server.SOCKET_NAME), Handler)
    os.chmod(gw / gateway_server.SOCKET_NAME, 0o777)
    threading.Thread(target=srv.serve_forever, daemon=True).start()
    sb = _box(tmp_path, image, gateway=gw)
    url = sb.gateway_url("http://127.0.0.1:1")
    try:
        res, out, err = _sh(sb, f"sleep 0.3; python3 -c \"import urllib.request; "
                                f"print(urllib.request.urlopen('{url}/v1/models', timeout=5).read().decode())\"",
                            tmp_path)
    finally:
        sb.stop()
        srv.shutdown()
    assert res.ok, err
    assert out.strip() == "gateway saw /v1/models"


def test_missing_or_unnamed_image_is_a_sandbox_error(tmp_path, image):
    sb = ContainerSandbox(SandboxConfig(tmp_path / "ws", image="localhost/reclaim-no-such:image"), "podman")
    with pytest.raises(SandboxError, match="podman pull localhost/reclaim-no-such:image"):
        sb.start()
    os.environ.pop("RECLAIM_CONTAINER_IMAGE", None)
    with pytest.raises(SandboxError, match="needs an image"):
        ContainerSandbox(SandboxConfig(tmp_path / "ws"), "podman").start()


def test_engine_failure_is_a_sandbox_error_not_an_exit_code(tmp_path, image):
    sb = _box(tmp_path, image)
    sb.config.binds.append(Bind(Path("/nonexistent/reclaim"), "/run/x"))  # the engine refuses to start it
    with pytest.raises(SandboxError, match="could not start the container"):
        sb.exec(["true"], stdout=tmp_path / "o", stderr=tmp_path / "e")
    sb.stop()
    with pytest.raises(SandboxError, match="could not start the container"):
        _box(tmp_path, image, binds=[Bind(Path("/nonexistent/reclaim"), "/run/x")])


def test_binds_hidden_devices_egress_and_tmp(tmp_path, image):
    tree = tmp_path / "tree"
    (tree / "suite" / "reference").mkdir(parents=True)
    (tree / "suite" / "reference" / "solve.py").write_text("secret")
    (tree / "lib.py").write_text("visible")
    (tree / "key.txt").write_text("key")
    rw, egress, tmp = tmp_path / "rw", tmp_path / "egress", tmp_path / "tmp"
    for d in (rw, egress, tmp):
        d.mkdir()
    (egress / "proxy.sock").write_text("")  # stands in for the socket
    sb = _box(tmp_path, image, binds=[Bind(tree, "/run/tree"), Bind(rw, "/run/rw", writable=True)],
              hidden=[tree / "suite", tree / "key.txt"], devices=[("/dev/null", "/dev/nvidia0")],
              egress=egress, tmp=tmp)
    _res, out, err = _sh(sb, """cat /run/tree/lib.py; echo; ls -A /run/tree/suite; cat /run/tree/key.txt
touch /run/tree/new 2>/dev/null && echo WROTE-RO; echo hi > /run/rw/out
test -c /dev/nvidia0 && echo probe > /dev/nvidia0 && echo DEVICE-OK; ls /run/reclaim-egress
echo t > /tmp/in-tmp""", tmp_path)
    sb.stop()
    assert out.splitlines() == ["visible", "DEVICE-OK", "proxy.sock"], (out, err)
    assert "WROTE-RO" not in out and (rw / "out").read_text() == "hi\n"
    assert (tmp / "in-tmp").read_text() == "t\n"


def test_exec_record_out_of_the_agents_reach(box, tmp_path):
    res, out, _ = _sh(box, "python3 -c 1; cat /run/reclaim-exec/log >/dev/null 2>&1 && echo READ-LOG; ls", tmp_path)
    assert res.ok and "READ-LOG" not in out
    if os.geteuid() != 0:
        return
    assert res.exec_log is not None and not res.exec_log_outside
    assert res.exec_log.parent.stat().st_mode & 0o777 == 0o700
    progs = [Path(e.path).name for e in execlog.parse(res.exec_log, identity.current().drop())]
    assert progs == ["bash", "python3", "cat", "ls"], progs


def test_limits_from_the_trials_cgroups(tmp_path, image, monkeypatch):
    """The trial's cgroups (budget/limits.py) hold the container and meter it; limits explicit too.
    A container killed for memory leaves nothing in the user's current folder (conmon's "oom")."""
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    lim = Limits(memory_mb=256, cpus=1, pids=64).start()
    if not any("cgroup" in e for e in lim.enforced):
        lim.stop()
        pytest.skip("no cgroups to write here")
    try:
        sb = _box(tmp_path, image, launcher_env=dict(lim.env))
        _res, out, err = _sh(sb, """ulimit -n; python3 - <<'PY'
import subprocess
procs = []
try:
    for _ in range(100):
        procs.append(subprocess.Popen(["sleep", "5"]))
except OSError:
    pass
print(len(procs))
for p in procs:
    p.kill()
PY
python3 -c "b = bytearray(600 << 20); b[::4096] = b'x' * len(b[::4096])" && echo ALLOCATED""", tmp_path)
        sb.stop()
        usage = lim.usage()
    finally:
        lim.stop()
    nofile, started = out.split()[:2]
    assert int(nofile) <= 65536 and int(started) < 64, (out, err)
    assert "ALLOCATED" not in out
    assert usage.cpu_s is not None and usage.cpu_s > 0  # metered by the trial's own cgroup
    left = list(CGROUP_ROOT.glob(f"*/{Path(lim.env['RECLAIM_CGROUPS'].split()[0]).name}"))
    assert left == []  # nothing the engine made there stays behind
    assert list(Path.cwd().iterdir()) == []


def test_per_command_overhead(box, tmp_path, capsys):
    times = []
    for _ in range(8):
        t0 = time.monotonic()
        assert box.exec(["true"], stdout=tmp_path / "o", stderr=tmp_path / "e").ok
        times.append(time.monotonic() - t0)
    bw = None
    if shutil.which("bwrap") and check_backend("bwrap") is None:
        b = make_sandbox("bwrap", SandboxConfig(tmp_path / "bw"))
        b.start()
        t0 = time.monotonic()
        for _ in range(8):
            b.exec(["true"], stdout=tmp_path / "o", stderr=tmp_path / "e")
        bw = (time.monotonic() - t0) / 8
    with capsys.disabled():
        print(f"\ncontainer per-command overhead: median {statistics.median(times) * 1000:.0f} ms, "
              f"max {max(times) * 1000:.0f} ms" + (f"; bwrap {bw * 1000:.0f} ms" if bw else ""))
    assert statistics.median(times) < 5


def test_ensure_image_builds_a_dockerfile_offline_once(tmp_path, image):
    ctx = tmp_path / "ctx"
    ctx.mkdir()
    (ctx / "marker.txt").write_text(secrets.token_hex(8))
    df = ctx / "Dockerfile"
    df.write_text(f"FROM localhost/{image}\nCOPY marker.txt /opt/marker.txt\n")
    tag = images.ensure_image(df, ctx, "podman")
    t0 = time.monotonic()
    assert images.ensure_image(df, ctx, "podman") == tag and time.monotonic() - t0 < 5
    try:
        sb = _box(tmp_path, tag)
        _res, out, _ = _sh(sb, "cat /opt/marker.txt", tmp_path)
        sb.stop()
        assert out == (ctx / "marker.txt").read_text()
        (tmp_path / "bad").write_text("FROM localhost/reclaim-absent:base\nRUN true\n")
        with pytest.raises(SandboxError, match="podman pull localhost/reclaim-absent:base"):
            images.ensure_image(tmp_path / "bad", ctx, "podman")
    finally:
        subprocess.run(["podman", "rmi", "--force", tag], check=False, capture_output=True)


# -- argv and availability: engines that cannot run here ----------------------------------------

def _run(**kw) -> engines.Run:
    base = {"image": "img", "name": "reclaim-x", "cmd": ["bash", "-c", "true"], "workdir": "/workspace",
                "mounts": [("/srv/ws", "/workspace", True), ("/srv/data", "/data", False)],
                "masks": [("/data/reference", True), ("/data/key", False)],
                "devices": [("/dev/nvidia0", "/dev/nvidia0")], "env_file": "/root/env",
                "user": (1879048192, 1879048192), "memory_bytes": 1 << 30, "cpus": 2, "pids": 128,
                "cgroup_parent": "/reclaim-abc"}
    return engines.Run(**base | kw)


@pytest.mark.parametrize("name", ["podman", "docker"])
def test_oci_argv_holds_the_isolation(name):
    argv = engines.Engine(name, f"/usr/bin/{name}", "runc" if name == "podman" else None).run_argv(_run())
    joined = " ".join(argv)
    for flag in ("--cap-drop=ALL", "--security-opt=no-new-privileges", "--network=none", "--read-only",
                 "--pull=never", "--pids-limit 128", "--memory 1073741824", "--memory-swap 1073741824",
                 "--cpus 2", "--user 1879048192:1879048192", "--env-file /root/env", "--cgroup-parent /reclaim-abc",
                 "--device /dev/nvidia0:/dev/nvidia0:rwm", "--workdir /workspace", "--entrypoint bash img -c true",
                 "type=bind,source=/srv/data,destination=/data,bind-propagation=rprivate,ro=true",
                 "source=/var/empty,destination=/data/reference", "source=/dev/null,destination=/data/key"):
        assert flag in joined, (flag, joined)
    assert "--privileged" not in argv and "--cap-add" not in joined and "sock" not in joined
    assert [a for a in argv if a.startswith(("nofile=", "nproc="))]
    assert argv[:3] == (["/usr/bin/podman", "--runtime", "runc", "run"][:3] if name == "podman" else
                        ["/usr/bin/docker", "run", "--name"])
    assert ("--log-driver=passthrough" in argv) == (name == "podman")


def test_bind_paths_that_would_inject_options_are_refused():
    with pytest.raises(ValueError):
        engines.oci_argv("podman", _run(mounts=[("/srv/a,destination=/etc", "/x", True)]))


def test_apptainer_argv_and_availability(monkeypatch):
    argv = engines.apptainer_argv("/usr/bin/apptainer", _run(image="/images/task.sif", env_file=None))
    joined = " ".join(argv)
    for flag in ("exec --containall --cleanenv --no-home", "--no-privs", "--net --network none",
                 "--bind /srv/ws:/workspace:rw", "--bind /srv/data:/data:ro", "--bind /dev/null:/data/key:ro",
                 "--bind /var/empty:/data/reference:ro", "--pwd /workspace", "/images/task.sif bash -c true",
                 "--nv --bind /dev/nvidia0:/dev/nvidia0"):
        assert flag in joined, (flag, joined)
    # the host's driver comes in with the GPUs only
    assert "--nv" not in engines.apptainer_argv("/usr/bin/apptainer", _run(devices=[], env_file=None))
    if shutil.which("apptainer") is None and shutil.which("singularity") is None:
        why = images.available("apptainer")
        assert why is not None and "apptainer is not installed" in why


def test_engine_choice_and_unknown_engines(monkeypatch):
    assert "unknown container engine 'lxc'" in images.available("lxc")
    monkeypatch.setenv("RECLAIM_CONTAINER_ENGINE", "docker")
    e = engines.find()
    if shutil.which("docker"):
        assert e is not None and e.name == "docker"
        why = images.available()
        if why is not None:  # a docker CLI without an engine: said plainly
            assert why.startswith("docker cannot run containers here") or "does not answer" in why
    else:
        assert e is None and "docker is not installed" in images.available()
