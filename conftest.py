"""Repository-level pytest configuration: the fixtures come from the installed ``fakekube`` plugin."""
