"""Write the list of docs/model.md from the app's own ("What this model assumes", flashviz/model/sources.py's
ASSUMPTIONS), keeping the page's text above it. `python docs/make_model_doc.py`; tests/test_docs.py fails
when the page and the list differ."""
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from flashviz.model.sources import assumptions_markdown  # noqa: E402

HEAD = "## The list, as the app shows it\n"

if __name__ == "__main__":
    page = ROOT / "docs" / "model.md"
    text = page.read_text()
    page.write_text(text[:text.index(HEAD) + len(HEAD)] + assumptions_markdown())
    print(f"wrote {page}")
