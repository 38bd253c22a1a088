"""What the pages say: the opening questions, computed sentences (claims), number formatting, the
Break-it table, the seed's demos.

Imports flashviz.model, run, hardware and players.
"""
