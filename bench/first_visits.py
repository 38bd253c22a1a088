"""Each lesson's first visit to a fresh server, one reader at a time: the server's CPU and the reader's wait.

A reader opens lesson 1; the server is left alone for PAUSE_S (explorer/warm.py's pieces start once no run has
ended for QUIET_S) and until it is quiet; then each lesson in turn, each in a new session, the server quiet between
them. What lesson 1's run left the process to do after it (the pieces) is printed apart. With
checkouts named, each is measured on a fresh server, in turn, `--rounds` times, and each cell is the least of the
rounds (the machine is shared: the least is the one least disturbed).

    python bench/first_visits.py [--rounds 2] [CHECKOUT ...]   (default: this one)
"""
from __future__ import annotations

import argparse
import asyncio
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from explorer.lessons import LESSONS  # noqa: E402
from explorer.warm import QUIET_S  # noqa: E402
from tests.st_client import Client, Server, free_port  # noqa: E402

AFTER = "after lesson 1's run"
PAUSE_S = QUIET_S + 1


async def visits(root: Path) -> dict:
    """{lesson url path: (server CPU s, wait s, errors)}, and AFTER: the CPU once lesson 1's run was over."""
    out: dict = {}
    with Server(root, free_port()) as server:
        for lesson in LESSONS:
            client = Client(server.ws_url, "" if lesson is LESSONS[0] else lesson.url_path)
            before = await server.settled_cpu()
            t = time.perf_counter()
            run = await client.connect()
            wait = time.perf_counter() - t
            ran = server.cpu()
            if lesson is LESSONS[0]:
                await asyncio.sleep(PAUSE_S)
            quiet = await server.settled_cpu()
            await client.close()
            if lesson is LESSONS[0]:
                out[AFTER] = quiet - ran
            out[lesson.url_path] = (ran - before if lesson is LESSONS[0] else quiet - before, wait, len(run.errors))
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("checkouts", nargs="*", type=Path, default=[ROOT])
    ap.add_argument("--rounds", type=int, default=2)
    args = ap.parse_args()
    runs: dict[Path, list[dict]] = {root: [] for root in args.checkouts}
    for _ in range(args.rounds):
        for root in args.checkouts:
            runs[root].append(asyncio.run(visits(root)))
    names = [lesson.url_path for lesson in LESSONS]
    print("| first visit: server CPU s, wait s | " + " | ".join(str(root) for root in runs) + " |")
    print("|---|" + "---:|" * len(runs))
    print(f"| {AFTER}, in the background | " + " | ".join(f"{min(r[AFTER] for r in rs):.2f}" for rs in runs.values())
          + " |")
    for name in names:
        cells = [f"{min(r[name][0] for r in rs):.2f}, {min(r[name][1] for r in rs):.2f}" for rs in runs.values()]
        print(f"| {name} | " + " | ".join(cells) + " |")
    for root, rs in runs.items():
        total = sum(min(r[name][0] for r in rs) for name in names)
        errors = sum(r[name][2] for r in rs for name in names)
        print(f"\n{root}: every lesson's first visit {total:.2f} s of CPU, and {min(r[AFTER] for r in rs):.2f} s after "
              f"lesson 1's run; {errors} errors")


if __name__ == "__main__":
    main()
