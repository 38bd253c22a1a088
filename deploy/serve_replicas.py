"""Several `streamlit run app.py` replicas behind nginx on loopback, with sticky sessions.

    python deploy/serve_replicas.py [--replicas 2] [--port 8700] [--print-config]

Fills deploy/nginx.conf in a run folder, starts the replicas on the ports after --port and nginx
on --port, waits until nginx routes /_stcore/health to every replica, prints the URL, and stops
everything on Ctrl-C. Needs requirements.lock's packages (`pip install -r requirements.lock`:
the set CI tested; it refuses to start on other versions unless --unlocked) and Debian's nginx
(`apt-get install -y nginx`). Everything listens on 127.0.0.1; put a TLS front (or nginx's own `listen 443 ssl`) before
it to serve readers elsewhere.

bench/replicas.py and tests/test_replicas.py start the same setup through `serving()`.
"""
from __future__ import annotations

import argparse
import contextlib
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LOCK = ROOT / "requirements.lock"
TEMPLATE = ROOT / "deploy" / "nginx.conf"
COOKIE = "flashviz_replica"  # names the replica that holds a reader's session (see nginx.conf)
HEADER = "X-Flashviz-Replica"  # names the replica that answered a request
HOST = "127.0.0.1"
# A replica that refuses one connection is skipped for this long, then tried again.
FAIL_TIMEOUT_S = 10

# Direct HTTP to loopback, whatever proxy the environment names.
_opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))


def replica_command(python: str, port: int) -> list[str]:
    """A replica behind the proxy: the settings that matter there, on its command line, so that
    .streamlit/config.toml stays the one a single server or Community Cloud runs with."""
    return [python, "-m", "streamlit", "run", "app.py",
            f"--server.address={HOST}", f"--server.port={port}",  # only nginx reaches a replica
            "--server.headless=true", "--browser.gatherUsageStats=false",
            # Same-origin through nginx (it passes Host with the port), so both protections stay on;
            # the XSRF cookie is signed with server.cookieSecret, shared by every replica (below).
            "--server.enableXsrfProtection=true", "--server.enableCORS=true",
            # The hop from nginx is loopback; compressing each rerun's figures would spend the
            # replica's CPU, which is what runs out first under load (BENCHMARKS.md).
            "--server.enableWebsocketCompression=false",
            # nginx serves the app at /; under a prefix, set it here and in nginx's `location`.
            "--server.baseUrlPath=",
            "--server.runOnSave=false", "--server.fileWatcherType=none"]


def render(ports: dict[str, int], listen: int, run_dir: Path) -> str:
    """deploy/nginx.conf with its @...@ fields filled for these replicas (name -> port)."""
    def server(port: int, backup: bool = False) -> str:
        return (f"        server {HOST}:{port}{' backup' if backup else ''} "
                f"max_fails=1 fail_timeout={FAIL_TIMEOUT_S}s;")

    escaped = HOST.replace(".", r"\.")
    own = []
    for name, port in ports.items():
        own += [f"    upstream replica_{name} {{", f"        zone replica_{name} 64k;", server(port)]
        own += [server(other, backup=True) for other in ports.values() if other != port]
        own += ["    }"]
    fields = {
        "RUN": str(run_dir),
        "LISTEN": f"{HOST}:{listen}",
        "REPLICA_BY_ADDRESS": "\n".join(f"        ~{escaped}:{port}$ {name};" for name, port in ports.items()),
        "UPSTREAM_BY_COOKIE": "\n".join(f"        {name} replica_{name};" for name in ports),
        "POOL_SERVERS": "\n".join(server(port) for port in ports.values()),
        "REPLICA_UPSTREAMS": "\n".join(own),
    }
    text = TEMPLATE.read_text()
    for key, value in fields.items():
        text = text.replace(f"@{key}@", value)
    return text


def nginx_binary() -> str:
    """Debian's nginx; /usr/sbin is not on a normal user's PATH."""
    found = shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.path.exists(p)), None)
    if found is None:
        raise RuntimeError("nginx is not installed: `apt-get install -y nginx` (Debian)")
    return found


def port_is_free(port: int) -> bool:
    """Nothing listens there. SO_REUSEADDR as nginx and uvicorn bind, so that connections of a
    previous run in TIME_WAIT do not count."""
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((HOST, port))
        except OSError:
            return False
    return True


@dataclass
class Reply:
    status: int
    replica: str | None  # nginx's header: the replica that answered
    route: str | None  # the route cookie nginx set, if any
    body: bytes


def get(url: str, cookie: str | None = None, timeout: float = 5) -> Reply:
    """One GET on the loopback, sending the route cookie if given, as a browser would."""
    req = urllib.request.Request(url, headers={"Cookie": f"{COOKIE}={cookie}"} if cookie else {})
    try:
        with _opener.open(req, timeout=timeout) as r:
            status, headers, body = r.status, r.headers, r.read()
    except urllib.error.HTTPError as err:
        status, headers, body = err.code, err.headers, err.read()
    return Reply(status, headers.get(HEADER), route_cookie(headers.get_all("Set-Cookie") or []), body)


def route_cookie(set_cookies: list[str]) -> str | None:
    """The route cookie's value among a reply's Set-Cookie headers (Streamlit sets its own too)."""
    return next((c.split(";")[0].split("=", 1)[1] for c in set_cookies if c.startswith(COOKIE + "=")), None)


def tail(path: Path, lines: int = 15) -> str:
    return "\n".join(path.read_text(errors="replace").splitlines()[-lines:]) if path.exists() else ""


@dataclass
class Cluster:
    """Running replicas (name -> process) behind nginx at `url`."""
    url: str
    run_dir: Path
    ports: dict[str, int]
    procs: dict[str, subprocess.Popen] = field(default_factory=dict)
    nginx: subprocess.Popen | None = None

    def kill(self, name: str) -> int:
        """Kill one replica outright, as a crash would; returns its pid."""
        proc = self.procs[name]
        proc.kill()
        proc.wait(timeout=30)
        return proc.pid

    def healthy(self, through_nginx: bool) -> bool:
        """Every live replica answers /_stcore/health: on its own port, or through nginx with a
        cookie naming it (and nginx's header says that replica answered)."""
        for name, proc in self.procs.items():
            if proc.poll() is not None:
                continue
            url = self.url if through_nginx else f"http://{HOST}:{self.ports[name]}"
            try:
                reply = get(url + "/_stcore/health", cookie=name, timeout=2)
            except OSError:
                return False
            if (reply.status, reply.body) != (200, b"ok") or (through_nginx and reply.replica != name):
                return False
        return True

    def wait_healthy(self, timeout: float) -> None:
        """Each replica on its own port first: a probe through nginx before a replica listens would
        mark it failed for fail_timeout. Then nginx's route to each."""
        deadline = time.monotonic() + timeout
        while not (self.healthy(through_nginx=False) and self.healthy(through_nginx=True)):
            dead = [n for n, p in [*self.procs.items(), ("nginx", self.nginx)] if p is None or p.poll() is not None]
            if dead or time.monotonic() > deadline:
                why = f"{', '.join(dead)} exited" if dead else f"not healthy in {timeout:.0f} s"
                logs = "\n".join(f"--- {p.name}\n{tail(p)}" for p in sorted(self.run_dir.glob("*.log")))
                raise RuntimeError(f"replicas behind nginx: {why}\n{logs}")
            time.sleep(0.2)  # poll interval while the replicas import

    def stop(self) -> None:
        """nginx first (no new requests), then the replicas; each gets 20 s before a kill."""
        for proc in [self.nginx, *self.procs.values()]:
            if proc is not None and proc.poll() is None:
                proc.terminate()
        for proc in [self.nginx, *self.procs.values()]:
            if proc is None:
                continue
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(timeout=10)


@contextlib.contextmanager
def serving(replicas: int = 2, port: int = 8700, run_dir: Path | None = None,
            timeout: float = 120) -> Iterator[Cluster]:
    """nginx on `port`, replicas r1..rN on the ports after it, until the block ends."""
    ports = {f"r{k}": port + k for k in range(1, replicas + 1)}
    busy = [p for p in [port, *ports.values()] if not port_is_free(p)]
    if busy:
        raise RuntimeError(f"ports in use on {HOST}: {busy}")
    nginx = nginx_binary()
    own_dir = run_dir is None
    run_dir = Path(tempfile.mkdtemp(prefix="flashviz-replicas-")) if run_dir is None else run_dir.resolve()
    # nginx's workers drop root to `nobody`, which must reach the temp folders in here.
    run_dir.mkdir(parents=True, exist_ok=True)
    run_dir.chmod(0o755)
    (run_dir / "tmp").mkdir(exist_ok=True)
    conf = run_dir / "nginx.conf"
    conf.write_text(render(ports, port, run_dir))
    nginx_cmd = [nginx, "-p", str(run_dir), "-c", str(conf), "-e", str(run_dir / "error.log")]
    check = subprocess.run([*nginx_cmd, "-t", "-q"], capture_output=True, text=True)
    if check.returncode != 0:
        raise RuntimeError(f"nginx rejected {conf}:\n{check.stderr}")
    # One cookie secret for all: a cookie one replica signed (XSRF, st.login) holds on the others.
    env = {**os.environ, "STREAMLIT_SERVER_COOKIE_SECRET": secrets.token_hex(32)}
    cluster = Cluster(url=f"http://{HOST}:{port}", run_dir=run_dir, ports=ports)
    try:
        for name, p in ports.items():
            with open(run_dir / f"{name}.log", "wb") as log:
                # Own sessions: a Ctrl-C reaches this script only, which stops them in order.
                cluster.procs[name] = subprocess.Popen(replica_command(sys.executable, p), cwd=ROOT, env=env,
                                                       stdout=log, stderr=subprocess.STDOUT,
                                                       start_new_session=True)
        with open(run_dir / "nginx.log", "wb") as log:
            cluster.nginx = subprocess.Popen([*nginx_cmd, "-g", "daemon off;"], stdout=log,
                                             stderr=subprocess.STDOUT, start_new_session=True)
        cluster.wait_healthy(timeout)
        yield cluster
    finally:
        cluster.stop()
        if own_dir:
            shutil.rmtree(run_dir, ignore_errors=True)


def unlocked(lock: Path = LOCK) -> list[str]:
    """The packages installed here at another version than the lock pins (for this Python and
    platform), or missing: what this machine would serve that CI did not test."""
    from importlib import metadata

    from packaging.markers import Marker  # a dependency of Streamlit's

    off = []
    for line in lock.read_text().splitlines():
        pin, _, marker = line.split("#")[0].partition(";")
        if "==" not in pin or (marker.strip() and not Marker(marker.strip()).evaluate()):
            continue
        name, version = (part.strip() for part in pin.split("=="))
        try:
            have = metadata.version(name)
        except metadata.PackageNotFoundError:
            have = "missing"
        if have != version:
            off.append(f"{name} {have} (the lock: {version})")
    return off


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--replicas", type=int, default=2)
    p.add_argument("--port", type=int, default=8700, help="nginx's port; replicas take the next ones")
    p.add_argument("--run-dir", type=Path, help="config, pid and logs (default: a temporary folder)")
    p.add_argument("--print-config", action="store_true", help="print the filled nginx.conf and exit")
    p.add_argument("--unlocked", action="store_true",
                   help="serve even where the installed versions are not requirements.lock's")
    a = p.parse_args()
    if a.print_config:
        run_dir = a.run_dir or Path(tempfile.gettempdir()) / "flashviz-replicas"
        print(render({f"r{k}": a.port + k for k in range(1, a.replicas + 1)}, a.port, run_dir.resolve()))
        return

    off = unlocked()
    if off and not a.unlocked:
        sys.exit("flashviz: these packages are not the versions CI tested (requirements.lock):\n  "
                 + "\n  ".join(off) + "\n`pip install -r requirements.lock` installs them; --unlocked serves anyway")

    def interrupt(*_: object) -> None:
        raise KeyboardInterrupt

    # Ctrl-C, and `kill`, stop it cleanly, even where a shell started it with SIGINT ignored.
    signal.signal(signal.SIGINT, interrupt)
    signal.signal(signal.SIGTERM, interrupt)
    with contextlib.suppress(KeyboardInterrupt), serving(a.replicas, a.port, a.run_dir) as cluster:
        where = ", ".join(f"{n} :{p}" for n, p in cluster.ports.items())
        print(f"flashviz: {len(cluster.ports)} replicas ({where}) behind nginx at {cluster.url}\n"
              f"logs in {cluster.run_dir}; Ctrl-C stops everything", flush=True)
        assert cluster.nginx is not None
        cluster.nginx.wait()  # returns only if nginx dies; Ctrl-C ends the wait
        print(f"nginx exited ({cluster.nginx.returncode}); stopping the replicas", flush=True)
    print("stopped", flush=True)


if __name__ == "__main__":
    main()
