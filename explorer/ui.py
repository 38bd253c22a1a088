"""What a lesson calls: one name for the page layer's helpers, each kept in the module of its idea.
A lesson reads `ui.bound(...)`, `ui.slide(...)`, `ui.chart(...)`, and need not know where they live:

- `widgets.py`: bound widgets (a control whose value lives in the URL), the shared sidebar, the
  reader's own GPU, the shared settings as an engine Config.
- `deck.py`: a lesson's sections, the deck a presenter steps through, the previous / next buttons,
  the address bar kept equal to the controls.
- `share.py`: the share box, a reader's link and a presenter's.
- `notes.py`: explanations, the overflow banner, the model's assumptions and their marks, the reading list.
- `display.py`: tables and charts as a page draws them.
- `css.py`: the app's CSS and the clicker's script.
- `live.py`: live charts, which follow their sliders in the browser.
"""
from __future__ import annotations

from .css import style
from .deck import deck, lesson_nav, link_leftovers, resumes_inside, section, shared_link, slide, sync_url
from .display import chart, side_by_side, table
from .live import PLAYER_ON_RELEASE, SIZES
from .live import flush as live_flush
from .notes import PLAYER_KEYS, about, assumes, assumptions, explain, keys, overflow_banner, overflow_text, reading_list
from .share import share_link, share_params
from .widgets import (NO_ICON, bound, config, custom_gpu, custom_gpu_controls, hardware, keep_from_link,
                      own_setting, peek, presenting, shared_controls, simulable, sweep_config, value)

__all__ = ["NO_ICON", "PLAYER_KEYS", "PLAYER_ON_RELEASE", "SIZES", "about", "assumes", "assumptions", "bound", "chart",
           "config", "custom_gpu", "custom_gpu_controls", "deck", "explain", "hardware", "keep_from_link", "keys",
           "lesson_nav", "link_leftovers", "live_flush",
           "own_setting", "overflow_banner", "overflow_text", "peek", "presenting", "reading_list", "resumes_inside",
           "section", "share_link", "share_params", "shared_controls", "shared_link", "side_by_side", "simulable",
           "slide", "style", "sweep_config", "sync_url", "table", "value"]
