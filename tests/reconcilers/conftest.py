# The agent-sandbox fixtures come from the ``reconcilers.pytest_plugin`` pytest11 entry point; until the
# installed metadata lists it (or in a source tree without it), load the plugin here instead.
# ``pytest_plugins`` is defined only in that case: pytest >= 8 refuses the name (even an empty list) in a
# conftest below the rootdir, which would stop the whole suite from collecting.
from importlib.metadata import entry_points

if "reconcilers.pytest_plugin" not in {ep.value for ep in entry_points(group="pytest11")}:
    pytest_plugins = ["reconcilers.pytest_plugin"]
