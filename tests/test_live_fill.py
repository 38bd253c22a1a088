"""The ask for a slider's live figures (explorer/live.py) over Streamlit's own protocol: the browser sends every
control's value with it, as it holds them when the ask leaves. An ask sent before the page had drawn the run
that changed a setting carries that setting's older value; it must not put the older value back."""
import asyncio

from tests.conftest import ROOT
from tests.st_client import Client, Server, free_port
from explorer.lessons import LESSONS


async def _older_ask_keeps_the_newer_run(server: Server, page: str) -> list[str]:
    client = Client(server.ws_url, page)
    await client.connect()
    assert client.live is not None, "the lesson drew no live component"
    first = client.live[2]  # the run the browser had drawn when it asked
    await client.rerun({"n": "1536"})  # a whole run the ask did not know of (a step's preset, a release)
    seen = [client.query_string]
    # the ask that left before the new run was drawn: its run's token, and n as the browser held it then
    await client.ask(["d"], token=first, values={"n": "1024"})
    seen.append(client.query_string)
    await client.rerun({})  # whatever the page runs next starts from the settings the server holds
    seen.append(client.query_string)
    await client.close()
    return seen


def test_an_ask_sent_before_the_last_run_was_drawn_does_not_undo_that_run():
    with Server(ROOT, free_port()) as server:
        seen = asyncio.run(_older_ask_keeps_the_newer_run(server, LESSONS[0].url_path))
    assert all("n=1536" in query for query in seen), seen


async def _an_ask_of_this_run_carries_a_key_pressed_with_it(server: Server, page: str) -> str:
    client = Client(server.ws_url, page)
    await client.connect()
    # the focus came to the slider (the ask), and an arrow key moved it as the ask went out: the browser sends both
    # in one message, and the value reaches the server only with the ask; the page reruns at it
    await client.ask(["n"], values={"n": "1536"})
    await client.close()
    return client.query_string


def test_an_ask_of_the_drawn_run_with_a_moved_slider_reruns_the_page_at_it():
    with Server(ROOT, free_port()) as server:
        query = asyncio.run(_an_ask_of_this_run_carries_a_key_pressed_with_it(server, LESSONS[0].url_path))
    assert "n=1536" in query, query


async def _ask_for_every_live_slider(server: Server, pages: list[str]) -> dict[str, tuple[list[str], list[str]]]:
    """Each lesson at the defaults, every live slider's figures asked for: per lesson, what it asked for and what it
    still lacks after."""
    asked = {}
    for page in pages:
        client = Client(server.ws_url, page)
        await client.connect()
        knobs = sorted(client.missing) if client.live is not None else []
        if knobs:
            await client.ask(knobs)
        asked[page] = (knobs, sorted(client.missing))
        await client.close()
    return asked


def test_every_chart_follows_every_slider_it_names_at_the_defaults(tmp_path):
    """A chart whose figures along a slider would weigh more than explorer/live.py carries follows it only on
    release, which the page does not say: at the defaults, no chart does (lesson 1's roofline did along n, 1.3 MB
    for 25 values, until its roofs were drawn at fixed intensities)."""
    log = tmp_path / "server.log"
    with Server(ROOT, free_port(), log=log) as server:
        asked = asyncio.run(_ask_for_every_live_slider(server, [lesson.url_path for lesson in LESSONS]))
    assert sum(len(knobs) for knobs, _ in asked.values()) >= 30, asked  # the asks were made: 34 sliders live here
    assert not {page: left for page, (_, left) in asked.items() if left}, "figures still missing after the ask"
    heavy = [line for line in log.read_text().splitlines() if "flashviz: chart" in line]
    assert not heavy, heavy
