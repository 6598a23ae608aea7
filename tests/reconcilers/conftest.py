# The agent-sandbox fixtures come from the ``reconcilers.pytest_plugin`` pytest11 entry point; until the
# installed metadata lists it (or in a source tree without it), load the plugin here instead.
from importlib.metadata import entry_points

_registered = {ep.value for ep in entry_points(group="pytest11")}
pytest_plugins = [] if "reconcilers.pytest_plugin" in _registered else ["reconcilers.pytest_plugin"]
