"""Repository-level pytest configuration: fakekube's generic fixtures come from the installed ``fakekube``
plugin (a ``pytest11`` entry point); the agent-sandbox ones are opt-in, as for any user of them."""

pytest_plugins = ["fakekube.agentsandbox.pytest_plugin"]
