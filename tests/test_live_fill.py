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


async def _an_ask_of_this_run_with_an_older_record(server: Server, page: str) -> list[str]:
    client = Client(server.ws_url, page)
    await client.connect()
    await client.rerun({"n": "1536"})
    # the ask that leaves right after the run: its run is the one drawn, but the browser's record of the slider is
    # still the value before it (the run set the slider on the server, as a step of the clicker's does)
    await client.ask(["d"], values={"n": "1024"})
    seen = [client.query_string]
    await client.rerun({})
    seen.append(client.query_string)
    # the reader then moves the slider back: its own request reruns the page at that value
    await client.rerun({"n": "1024"})
    seen.append(client.query_string)
    await client.close()
    return seen


def test_an_ask_with_an_older_record_of_a_slider_keeps_the_page_and_a_move_after_it_still_counts():
    with Server(ROOT, free_port()) as server:
        seen = asyncio.run(_an_ask_of_this_run_with_an_older_record(server, LESSONS[0].url_path))
    assert ["n=1536" in query for query in seen] == [True, True, False], seen
