"""The Streamlit layer of flashviz: widgets, caching and layout helpers for the lessons/ scripts."""
