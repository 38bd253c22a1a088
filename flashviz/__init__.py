"""flashviz."""
