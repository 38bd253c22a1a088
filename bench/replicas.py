"""Two replicas behind nginx, tested for real: sessions stay on one replica, both replicas serve,
and a replica killed mid-run costs only its own sessions.

Starts deploy/serve_replicas.py's setup (nginx and two `streamlit run app.py` on 127.0.0.1), then:
- a browser: headless Chromium (Debian's) opens lesson 1; its replica is the one killed later;
- readers: websocket clients speaking Streamlit's protocol (tests/st_client.py's), each with its own
  route cookie like a browser tab: GET the page, open the websocket, then rerun after rerun moving
  the n slider, each followed by a GET of a /media/ file the rerun named (else /_stcore/health),
  and a reload (page + new websocket) every few reruns.
When every reader has done --reruns, the browser's replica is killed (SIGKILL) while they run.
Prints what it saw, and exits non-zero unless:
  (a) every session saw one replica in every HTTP reply and websocket handshake before the kill,
      and one after (the killed replica's sessions: the survivor);
  (b) both replicas served sessions;
  (c) the survivor's readers went on with no error and no dropped socket; the killed replica's
      readers reconnected to the survivor and reran there without error; the browser reconnected
      and showed the next lesson from the survivor; new readers after the kill reached the survivor.
Every wait is for a state, with a deadline. Talks to 127.0.0.1 only.

    python bench/replicas.py [--readers 8] [--reruns 12] [--after 6] [--think 0.3] [--port 8710]
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
from tests.replicas import run  # noqa: E402  (the replica test owns what it runs)


if __name__ == "__main__":
    a = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    a.add_argument("--readers", type=int, default=8, help="websocket readers before the kill (2 more join after)")
    a.add_argument("--reruns", type=int, default=12, help="reruns each reader does before the kill")
    a.add_argument("--after", type=int, default=6, help="reruns each reader must do after the kill")
    a.add_argument("--think", type=float, default=0.3, help="seconds a reader waits between moves")
    a.add_argument("--port", type=int, default=8710, help="nginx's port; the replicas take the next two")
    args = a.parse_args()
    sys.exit(1 if run(max(2, min(args.readers, 100)), min(args.reruns, 200), min(args.after, 200),
                      min(max(args.think, 0.0), 10.0), args.port).failures else 0)
